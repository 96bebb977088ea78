import CShim
import Glibc

/// Files of the state directory: writing records, syncing them, replacing
/// files atomically and reading them back.
extension Syscalls {
    public enum OpenMode: Sendable {
        /// `O_WRONLY | O_CREAT`: append with `write(_:_:at:)`.
        case writeCreating
        /// `O_WRONLY | O_CREAT | O_TRUNC`: a fresh file.
        case writeTruncating
        /// `O_RDONLY | O_DIRECTORY`: a directory, to sync it.
        case directory
    }

    /// `open(2)` with `O_CLOEXEC`, files created mode 0640.
    public static func open(_ path: String, _ mode: OpenMode) throws(SystemError) -> Int32 {
        let flags: Int32 =
            switch mode {
            case .writeCreating: O_WRONLY | O_CREAT
            case .writeTruncating: O_WRONLY | O_CREAT | O_TRUNC
            case .directory: O_RDONLY | O_DIRECTORY
            }
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, 0o640)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw SystemError("open \(path)")
        }
    }

    /// `pwrite(2)` of all the bytes at `offset`, resuming after short writes.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let count = pwrite(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset + done))
            if count > 0 {
                done += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            throw SystemError("write", errno: count == 0 ? ENOSPC : errno)
        }
    }

    public static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int) throws(SystemError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(SystemError) in try write(fd, raw, at: offset) }
        }
        try result.get()
    }

    /// `fdatasync(2)`: the file's data (and its size) reach the disk.
    public static func synchronizeData(_ fd: Int32) throws(SystemError) {
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw SystemError("fdatasync") }
        }
    }

    /// `fsync(2)`: the file, or a directory's entries, reach the disk.
    public static func synchronize(_ fd: Int32) throws(SystemError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw SystemError("fsync") }
        }
    }

    /// The file's length: `fstat(2)`'s `st_size`.
    public static func fileLength(_ fd: Int32) throws(SystemError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat") }
        return Int(info.st_size)
    }

    /// `ftruncate(2)`
    public static func truncate(_ fd: Int32, to length: Int) throws(SystemError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw SystemError("ftruncate") }
        }
    }

    /// `rename(2)`: atomically replaces `destination`.
    public static func rename(_ source: String, to destination: String) throws(SystemError) {
        guard Glibc.rename(source, destination) == 0 else { throw SystemError("rename \(source)") }
    }

    /// `unlink(2)`; a missing file is not an error. Returns true if it existed.
    @discardableResult
    public static func removeFile(_ path: String) throws(SystemError) -> Bool {
        if Glibc.unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw SystemError("unlink \(path)")
    }

    /// `opendir(3)`/`readdir(3)`: the names in a directory, without `.` and `..`.
    public static func directoryEntries(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError("opendir \(path)") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Reads a whole file of any size (up to `limit` bytes) into `buffer`,
    /// which grows as needed and is reused across calls so that reading
    /// many files costs no fresh memory each; returns the file's length, or
    /// nil if it does not exist.
    public static func readWholeFile(_ path: String, into buffer: inout [UInt8], limit: Int) throws(SystemError)
        -> Int?
    {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError("open \(path)")
        }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat \(path)") }
        let size = Int(info.st_size)
        guard size <= limit else { throw SystemError("read \(path)", errno: EFBIG) }
        if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
        var done = 0
        while done < size {
            let count = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + done }, size - done, off_t(done))
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw SystemError("read \(path)") }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// `open(2)` read-only, for `read(_:into:at:)`; nil if the file does not exist.
    public static func openForReading(_ path: String) throws(SystemError) -> Int32? {
        while true {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            if errno == ENOENT { return nil }
            throw SystemError("open \(path)")
        }
    }

    /// `pread(2)` at `offset` until `buffer` is full or the file ends;
    /// returns the bytes read.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int)
        throws(SystemError) -> Int
    {
        var done = 0
        while done < buffer.count {
            let count = pread(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw SystemError("read") }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Gives the heap's free pages back to the system (`malloc_trim(0)`):
    /// after a large transient allocation, RSS returns to what is in use.
    public static func returnFreedMemory() {
        _ = monkey_malloc_trim()
    }

    /// Reads a whole file of any size (up to `limit` bytes); nil if it does not exist.
    public static func readWholeFile(_ path: String, limit: Int) throws(SystemError) -> [UInt8]? {
        var buffer: [UInt8] = []
        guard let count = try readWholeFile(path, into: &buffer, limit: limit) else { return nil }
        return Array(buffer[..<count])
    }
}

extension Syscalls {
    /// `sync_file_range(2)` on `count` bytes from `offset`: starts writing
    /// their dirty pages to the disk, and with `wait` also waits until
    /// they are written. No metadata and no cache flush: an `fdatasync`
    /// still makes them durable, with less left for it to do.
    public static func writeBack(_ fd: Int32, offset: Int, count: Int, wait: Bool) throws(SystemError) {
        while monkey_sync_file_range(fd, Int64(offset), Int64(count), wait ? 1 : 0) != 0 {
            if errno != EINTR { throw SystemError("sync_file_range") }
        }
    }

    /// `syncfs(2)`: everything written to the file system holding `fd`
    /// reaches the disk, in one call instead of one `fdatasync` per file.
    public static func synchronizeFileSystem(_ fd: Int32) throws(SystemError) {
        while monkey_syncfs(fd) != 0 {
            if errno != EINTR { throw SystemError("syncfs") }
        }
    }
}
