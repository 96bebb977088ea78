import MonkeyCore
import MonkeyShell

/// The control log's current segment `control.N`, appended to by the
/// daemon's queue only: the changes of one pass of the event loop in one
/// write and one `fdatasync` (group commit), never behind the storage
/// thread's syncs or folds. The segment is an `AppendOnlyFile` that keeps
/// zeros ahead of its records (`room`); reading takes zeros to the end as
/// the end of the records (`ControlFile.decodeLog`). A new segment starts
/// at each compaction.
final class ControlLog {
    let directory: String
    private(set) var segment: UInt64
    private var file: AppendOnlyFile
    /// How many zeros to keep ahead when the records reach them.
    let room: Int

    init(directory: String, segment: UInt64, length: Int, room: Int = 64 << 10) {
        self.directory = directory
        self.segment = segment
        self.room = room
        self.file = Self.file(directory, segment: segment, length: length, room: room)
    }

    private static func file(_ directory: String, segment: UInt64, length: Int, room: Int) -> AppendOnlyFile {
        let path = Self.path(directory, segment: segment)
        return AppendOnlyFile(path: path, label: "the control log \(path)", length: length, room: room)
    }

    /// Bytes of the segment holding its preamble and good records.
    var length: Int { file.length }

    static func path(_ directory: String, segment: UInt64) -> String {
        "\(directory)/control.\(segment)"
    }

    /// The segment number of a file name of the directory, if it is one.
    static func segment(ofFile name: String) -> UInt64? {
        guard name.hasPrefix("control."), !name.hasSuffix(".tmp") else { return nil }
        return UInt64(name.dropFirst("control.".count))
    }

    var path: String { Self.path(directory, segment: segment) }

    /// Appends records and syncs them: durable when this returns. On
    /// failure the segment is as it was (a torn write is cut at the next).
    func append(_ bytes: [UInt8]) throws(StorageError) {
        try file.append(bytes, sync: true)
    }

    /// Starts a new segment after this one: created with its preamble and
    /// synced, with the directory, before any change goes there.
    func startNextSegment() throws(StorageError) {
        let next = segment + 1
        try Self.create(directory, segment: next)
        segment = next
        file = Self.file(directory, segment: next, length: ControlFile.preambleLength, room: room)
        file.setLength(ControlFile.preambleLength)
    }

    /// Creates segment `segment` holding only its preamble, durably.
    static func create(_ directory: String, segment: UInt64) throws(StorageError) {
        let path = Self.path(directory, segment: segment)
        do {
            let fd = try Syscalls.open(path, .writeTruncating)
            defer { Syscalls.close(fd) }
            try Syscalls.write(fd, ControlFile.preamble(ControlFile.logHeader, segment: segment), at: 0)
            try Syscalls.synchronizeData(fd)
            let directoryFD = try Syscalls.open(directory, .directory)
            defer { Syscalls.close(directoryFD) }
            try Syscalls.synchronize(directoryFD)
        } catch {
            throw StorageError("cannot create the control log \(path): \(error.reason)")
        }
    }
}
