import MonkeyCore
import MonkeyShell

/// The control log's current segment, appended to by the daemon's queue
/// only: the changes of one pass of the event loop in one write and one
/// `fdatasync` (group commit), never behind the storage thread's syncs or
/// folds. The file is opened for each append, so that the state directory
/// can be remounted read-only while the daemon runs (it then refuses
/// changes until it is writable again).
///
/// The segment keeps zeros ahead of its records (`room` bytes, written with
/// the append that needs them): an append then writes over blocks already
/// written, and its `fdatasync` has no new file size to commit to the file
/// system's journal, about a third less time per sync on ext4. Reading
/// takes zeros to the end as the end of the records.
final class ControlLog {
    let directory: String
    private(set) var segment: UInt64
    /// Bytes of the segment holding its preamble and good records.
    private(set) var length: Int
    /// A failed write may have left bytes past `length`.
    private var mayHaveGarbage = false
    /// The file's length, records and zeros ahead; nil until read at the next append.
    private var allocated: Int?
    /// How many zeros to keep ahead when the records reach them.
    let room: Int

    init(directory: String, segment: UInt64, length: Int, room: Int = 64 << 10) {
        self.directory = directory
        self.segment = segment
        self.length = length
        self.room = room
    }

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
        guard !bytes.isEmpty else { return }
        do throws(SystemError) {
            let fd = try Syscalls.open(path, .writeCreating)
            defer { Syscalls.close(fd) }
            do throws(SystemError) {
                let end = length + bytes.count
                var allocated: Int
                if let known = self.allocated { allocated = known } else { allocated = try Syscalls.fileLength(fd) }
                try Syscalls.write(fd, bytes, at: length)
                if mayHaveGarbage {
                    try Syscalls.truncate(fd, to: end)
                    mayHaveGarbage = false
                    allocated = end
                }
                if end >= allocated {
                    // This append grows the file anyway: by `room` zeros
                    // more, synced with it. Without them (a full disk: the
                    // part written is given back) the log still works, with
                    // slower syncs.
                    if (try? Syscalls.write(fd, zeros(room), at: end)) != nil {
                        allocated = end + room
                    } else {
                        try Syscalls.truncate(fd, to: end)
                        allocated = end
                    }
                }
                try Syscalls.synchronizeData(fd)
                self.allocated = allocated
                length = end
            } catch {
                mayHaveGarbage = true
                allocated = nil
                try? Syscalls.truncate(fd, to: length)
                throw error
            }
        } catch {
            throw StorageError("cannot write the control log \(path): \(error.reason)")
        }
    }

    /// Starts a new segment after this one: created with its preamble and
    /// synced, with the directory, before any change goes there.
    func startNextSegment() throws(StorageError) {
        let next = segment + 1
        try Self.create(directory, segment: next)
        segment = next
        length = ControlFile.preambleLength
        allocated = length
        mayHaveGarbage = false
    }

    /// Zeros to write ahead of the records, made once for each size.
    private var zeroBuffer: [UInt8] = []
    private func zeros(_ count: Int) -> [UInt8] {
        if zeroBuffer.count != count { zeroBuffer = [UInt8](repeating: 0, count: count) }
        return zeroBuffer
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
