import MonkeyCore
import MonkeyShell

/// A file of the state directory written only at its end: the control
/// log's segments, the entries journal, the events file, each session's
/// entries file. Appends go after the good bytes (`length`), never over
/// them; what a failed append may have left past them is cut at the next
/// (`mayHaveGarbage`); a torn tail found at start-up is cut there
/// (`cut(to:)`); a file that cannot be read is set aside (`setAside`). A
/// file is written whole (the events file's rewrite, a compacted entries
/// file, the snapshot) through a temporary file and a rename (`replace`).
///
/// The file is opened for each write, so that the state directory can be
/// remounted read-only while the daemon runs (writes then fail until it is
/// writable again). Used on one queue only: the control log's on the
/// daemon's, the others on the storage thread's.
///
/// How far a file is written (`End`) is all a file needs kept between
/// writes; the static operations take it with the file's path, so that
/// thousands of sessions' entries files keep no path each.
struct AppendOnlyFile {
    /// How far a file is written.
    struct End: Sendable {
        /// Bytes holding the header and good records; 0 when there is no file.
        var length: Int
        /// A failed write may have left bytes past `length`.
        var mayHaveGarbage = false
        /// The file's length, records and zeros ahead (see `room`); nil
        /// until read at the next append.
        var allocated: Int?

        init(length: Int) {
            self.length = length
        }
    }

    let path: String
    /// How the errors name it: `the entries journal /var/lib/monkeyd/sessions/journal`.
    let label: String
    /// Written first when an append creates the file (`length` 0).
    let header: [UInt8]
    /// How many zeros to keep ahead of the records, written with the
    /// append that reaches them (0: none, the file ends at `length`).
    /// Over zeros already written, an append's `fdatasync` has no new file
    /// size to commit to the file system's journal: about a third less time
    /// per sync on ext4 (the control log). Readers take zeros to the end as
    /// the end of the records.
    let room: Int
    private(set) var end: End

    init(path: String, label: String, header: [UInt8] = [], length: Int, room: Int = 0) {
        self.path = path
        self.label = label
        self.header = header
        self.room = room
        self.end = End(length: length)
    }

    var length: Int { end.length }
    var mayHaveGarbage: Bool { end.mayHaveGarbage }

    mutating func append(_ bytes: UnsafeRawBufferPointer, sync: Bool) throws(StorageError) {
        try Self.append(bytes, sync: sync, at: path, label: label, header: header, room: room, end: &end)
    }

    mutating func append(_ bytes: [UInt8], sync: Bool) throws(StorageError) {
        try Self.append(bytes, sync: sync, at: path, label: label, header: header, room: room, end: &end)
    }

    mutating func append(_ bytes: ArraySlice<UInt8>, sync: Bool) throws(StorageError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(StorageError) in try append(raw, sync: sync) } }.get()
    }

    /// Replaces the whole file with `bytes`, durably (see
    /// `replaceFile(at:with:what:)`); appends then follow them.
    mutating func replace(with bytes: [UInt8], what: String) throws(StorageError) {
        try Self.replace(at: path, with: bytes, what: what, end: &end)
    }

    /// The file's good bytes are these: it was just created, or read and
    /// found whole.
    mutating func setLength(_ length: Int) {
        end = End(length: length)
        end.allocated = length
    }

    /// The file is gone: the next append creates it with its header.
    mutating func forget() {
        end = End(length: 0)
    }

    /// At start-up, or when a later append must not follow what is there:
    /// appends follow `validLength` bytes, and what lies past them is cut
    /// by the next append.
    mutating func resume(at validLength: Int) {
        end = End(length: validLength)
        end.mayHaveGarbage = true
    }

    /// At start-up: cuts a torn or damaged tail, keeping `validLength`
    /// bytes, durably; a file cut inside its header gets its header back.
    mutating func cut(to validLength: Int) throws(SystemError) {
        try Self.cut(at: path, header: header, to: validLength, end: &end)
    }

    // MARK: The operations, on a file given by its path

    /// Appends `bytes` after the good bytes (creating the file with its
    /// header when there is none) and, with `sync`, syncs them: durable
    /// when this returns. On failure the good bytes are as they were; what
    /// the failure may have left is cut at the next append.
    static func append(
        _ bytes: UnsafeRawBufferPointer, sync: Bool, at path: String, label: String, header: [UInt8] = [],
        room: Int = 0, end: inout End
    ) throws(StorageError) {
        guard bytes.count > 0 else { return }
        do throws(SystemError) {
            let fd = try Syscalls.open(path, .writeCreating)
            defer { Syscalls.close(fd) }
            do throws(SystemError) {
                let start = end.length == 0 ? header.count : end.length
                if end.length == 0 && !header.isEmpty { try Syscalls.write(fd, header, at: 0) }
                let last = start + bytes.count
                try Syscalls.write(fd, bytes, at: start)
                if room > 0 {
                    try keepRoom(room, fd, last: last, end: &end)
                } else if end.mayHaveGarbage || end.length == 0 {
                    try Syscalls.truncate(fd, to: last)
                }
                if sync { try Syscalls.synchronizeData(fd) }
                end.mayHaveGarbage = false
                end.length = last
            } catch {
                // A partial record must not stay where the next one would follow it.
                end.mayHaveGarbage = true
                end.allocated = nil
                try? Syscalls.truncate(fd, to: end.length)
                throw error
            }
        } catch {
            throw StorageError("cannot write \(label): \(error.reason)")
        }
    }

    static func append(
        _ bytes: [UInt8], sync: Bool, at path: String, label: String, header: [UInt8] = [], room: Int = 0,
        end: inout End
    ) throws(StorageError) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(StorageError) in
                try append(raw, sync: sync, at: path, label: label, header: header, room: room, end: &end)
            }
        }.get()
    }

    /// Cuts garbage a failed write left, and keeps `room` zeros ahead of
    /// the records when the append reaches them. Without them (a full
    /// disk: the part written is given back) the file still works, with
    /// slower syncs.
    private static func keepRoom(_ room: Int, _ fd: Int32, last: Int, end: inout End) throws(SystemError) {
        var allocated: Int
        if let known = end.allocated { allocated = known } else { allocated = try Syscalls.fileLength(fd) }
        if end.mayHaveGarbage {
            try Syscalls.truncate(fd, to: last)
            allocated = last
        }
        if last >= allocated {
            if (try? Syscalls.write(fd, [UInt8](repeating: 0, count: room), at: last)) != nil {
                allocated = last + room
            } else {
                try Syscalls.truncate(fd, to: last)
                allocated = last
            }
        }
        end.allocated = allocated
    }

    /// Replaces the whole file at `path` with `bytes`; appends then follow them.
    static func replace(at path: String, with bytes: [UInt8], what: String, end: inout End) throws(StorageError) {
        try replaceFile(at: path, with: bytes, what: what)
        end = End(length: bytes.count)
    }

    /// Cuts a torn or damaged tail of the file at `path`, keeping
    /// `validLength` bytes, durably; a file cut inside its header gets its
    /// header back.
    static func cut(at path: String, header: [UInt8] = [], to validLength: Int, end: inout End) throws(SystemError) {
        let fd = try Syscalls.open(path, .writeCreating)
        defer { Syscalls.close(fd) }
        let kept = max(validLength, header.count)
        if validLength < header.count { try Syscalls.write(fd, header, at: 0) }
        try Syscalls.truncate(fd, to: kept)
        try Syscalls.synchronizeData(fd)
        end = End(length: kept)
        end.allocated = kept
    }

    /// Writes a whole file: a temporary file beside it, synced, then
    /// renamed over it (the directory is synced by the caller, once for
    /// all it replaced). A crash leaves the old file or the new one, and
    /// at worst a temporary file, removed at the next start.
    static func replaceFile(at path: String, with bytes: [UInt8], what: String) throws(StorageError) {
        let temporary = path + ".tmp"
        do {
            let fd = try Syscalls.open(temporary, .writeTruncating)
            defer { Syscalls.close(fd) }
            try Syscalls.write(fd, bytes, at: 0)
            try writeBackInPieces(fd, length: bytes.count)
            try Syscalls.synchronizeData(fd)
            try Syscalls.rename(temporary, to: path)
        } catch {
            _ = try? Syscalls.removeFile(temporary)
            throw StorageError("cannot write \(what) to \(path): \(error.reason)")
        }
    }

    /// What a large file write may have on its way to the disk at once.
    static let writePiece = 512 * 1024

    /// Starts the writeback of the file's first `length` bytes a piece at
    /// a time, each piece waited for once the next is on its way. One
    /// `fdatasync` of a whole large file (a flat-out session's entries,
    /// 10 MB a sync) queues it all on the disk at once, and the control
    /// log's commit on the owner's queue waits behind it (up to 7 ms);
    /// this way at most two pieces are ahead of that commit.
    static func writeBackInPieces(_ fd: Int32, length: Int) throws(SystemError) {
        guard length > writePiece else { return }
        for offset in stride(from: 0, to: length, by: writePiece) {
            try Syscalls.writeBack(fd, offset: offset, count: writePiece, wait: false)
            if offset > 0 {
                try Syscalls.writeBack(fd, offset: offset - writePiece, count: writePiece, wait: true)
            }
        }
    }

    /// Moves a file that cannot be used out of the way, to `path` +
    /// `suffix` (`.damaged`, `.unreadable`), for the operator to look at.
    static func setAside(_ path: String, suffix: String) throws(SystemError) {
        try Syscalls.rename(path, to: path + suffix)
    }
}
