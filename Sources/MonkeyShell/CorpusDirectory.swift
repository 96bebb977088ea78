import Glibc

/// Reads a corpus's directory: the bytes of each file that is a work.
/// What makes a name a work, and what the bytes must be, is the core's
/// (`CorpusSource`); this reads, and refuses what cannot be read safely:
///
/// - only regular files are works: a directory, FIFO, socket or device
///   named `*.txt` is skipped, as any file whose name is not a work's;
/// - a symbolic link is followed only to a regular file inside the
///   corpus directory; one that leads out of it (or nowhere) is an error,
///   not skipped, so that a corpus cannot be made to read other files;
/// - a file whose size, time stamps or identity change while it is read
///   (`fstat(2)` before and after, and no byte past the size) is an error;
/// - the files together may hold at most `byteLimit` bytes, checked
///   before each is read, so that memory stays bounded.
///
/// Files are opened with `O_NONBLOCK` (a FIFO put in a file's place
/// between the check and the open cannot block the reader) and
/// `O_NOFOLLOW` (the last component is the one checked).
public enum CorpusDirectory {
    /// One work's file: its name in the directory and its bytes.
    public struct File: Sendable, Equatable {
        public let name: String
        public let bytes: [UInt8]
    }

    /// Why a corpus directory could not be read.
    public enum Failure: Error, Sendable, Equatable {
        /// No directory at the path (`ENOENT`, `ENOTDIR`).
        case missing(path: String)
        /// A symbolic link that leads out of the directory.
        case linkOutside(file: String)
        /// The file changed while it was read.
        case changedWhileRead(file: String)
        /// A system call failed: the file (or directory) and the system's sentence.
        case unreadable(file: String, reason: String)
        /// The files together hold more than the limit.
        case tooLarge(limit: Int)
    }

    /// The work files of the directory at `path`, in directory order:
    /// those whose name `isWork` accepts and that are regular files (or
    /// links to one inside the directory).
    public static func read(_ path: String, isWork: (String) -> Bool, byteLimit: Int) throws(Failure) -> [File] {
        try read(path, isWork: isWork, byteLimit: byteLimit, afterReading: { _ in })
    }

    /// As `read(_:isWork:byteLimit:)`; `afterReading` is called with each
    /// file's name between reading it and checking that it did not change
    /// (for tests, which change it there).
    package static func read(
        _ path: String, isWork: (String) -> Bool, byteLimit: Int, afterReading: (String) -> Void
    ) throws(Failure) -> [File] {
        let directory = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .missing(path: path) }
            throw .unreadable(file: path, reason: SystemError.sentence(errno))
        }
        defer { Glibc.close(directory) }
        guard let root = realPath(path) else { throw .unreadable(file: path, reason: SystemError.sentence(errno)) }
        var files: [File] = []
        var total = 0
        let names: [String]
        do {
            names = try Syscalls.directoryEntries(path)
        } catch {
            throw .unreadable(file: path, reason: error.reason)
        }
        for name in names where isWork(name) {
            guard let opened = try open(name, in: directory, path: path, root: root) else { continue }
            defer { Glibc.close(opened.fd) }
            let size = Int(opened.before.st_size)
            guard size <= byteLimit - total else { throw .tooLarge(limit: byteLimit) }
            total += size
            let bytes = try readAll(opened.fd, size: size, name: name)
            afterReading(name)
            var after = stat()
            guard fstat(opened.fd, &after) == 0 else {
                throw .unreadable(file: name, reason: SystemError.sentence(errno))
            }
            guard Self.isSame(opened.before, after) else { throw .changedWhileRead(file: name) }
            files.append(File(name: name, bytes: bytes))
        }
        return files
    }

    /// Opens a work's file: nil when it is not a regular file (nor a link
    /// to one), a failure when it is a link that leads out of `root`.
    private static func open(
        _ name: String, in directory: Int32, path: String, root: String
    ) throws(Failure) -> (fd: Int32, before: stat)? {
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .unreadable(file: name, reason: SystemError.sentence(errno))
        }
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let fd: Int32
        if info.st_mode & S_IFMT == S_IFLNK {
            guard let target = realPath(path + "/" + name) else {
                throw .unreadable(file: name, reason: SystemError.sentence(errno))
            }
            guard target.hasPrefix(root == "/" ? "/" : root + "/") else { throw .linkOutside(file: name) }
            fd = Glibc.open(target, flags)
        } else {
            guard info.st_mode & S_IFMT == S_IFREG else { return nil }
            fd = openat(directory, name, flags)
        }
        guard fd >= 0 else { throw .unreadable(file: name, reason: SystemError.sentence(errno)) }
        var before = stat()
        guard fstat(fd, &before) == 0 else {
            let reason = SystemError.sentence(errno)
            Glibc.close(fd)
            throw .unreadable(file: name, reason: reason)
        }
        guard before.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            // A link to a directory or a FIFO: no work, as the thing itself would be.
            if info.st_mode & S_IFMT == S_IFLNK { return nil }
            throw .changedWhileRead(file: name)
        }
        return (fd, before)
    }

    /// `size` bytes from the start of `fd`, and nothing after them.
    private static func readAll(_ fd: Int32, size: Int, name: String) throws(Failure) -> [UInt8] {
        // One byte more than the size, to see the file end where fstat said.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var done = 0
        while done <= size {
            let count = bytes.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.unsafelyUnwrapped + done, size + 1 - done, off_t(done))
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw .unreadable(file: name, reason: SystemError.sentence(errno)) }
            if count == 0 { break }
            done += count
        }
        guard done == size else { throw .changedWhileRead(file: name) }
        bytes.removeLast()
        return bytes
    }

    /// The file is the same one, unchanged: identity, size and both time stamps.
    private static func isSame(_ before: stat, _ after: stat) -> Bool {
        before.st_dev == after.st_dev && before.st_ino == after.st_ino && before.st_size == after.st_size
            && before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec
            && before.st_ctim.tv_sec == after.st_ctim.tv_sec && before.st_ctim.tv_nsec == after.st_ctim.tv_nsec
    }

    /// `realpath(3)`: the path with every link and `.`/`..` resolved; nil (errno set) if it cannot be.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
