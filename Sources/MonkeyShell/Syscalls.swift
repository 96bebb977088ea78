import CShim
import Glibc

/// Every system call monkeyd and monkeyctl make, with Swift names; the C
/// name is in each doc comment. EINTR is retried here, once for all callers.
public enum Syscalls {
    /// `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC [| SOCK_NONBLOCK], 0)`
    public static func unixStreamSocket(nonBlocking: Bool) throws(SystemError) -> Int32 {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw SystemError("socket") }
        return fd
    }

    /// `socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)`
    public static func unixDatagramSocket() throws(SystemError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        return fd
    }

    /// Runs `body` with a `sockaddr_un` for `path` (abstract if it starts with "@").
    static func withUnixAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) throws(SystemError) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SystemError("sockaddr_un", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// `bind(2)` to a Unix socket path.
    public static func bind(_ fd: Int32, path: String) throws(SystemError) {
        let result = try withUnixAddress(path) { Glibc.bind(fd, $0, $1) }
        guard result == 0 else { throw SystemError("bind \(path)") }
    }

    /// `listen(2)`
    public static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        guard Glibc.listen(fd, backlog) == 0 else { throw SystemError("listen") }
    }

    /// `connect(2)` to a Unix socket path (retrying EINTR).
    public static func connect(_ fd: Int32, path: String) throws(SystemError) {
        while true {
            let result = try withUnixAddress(path) { Glibc.connect(fd, $0, $1) }
            if result == 0 { return }
            if errno == EINTR { continue }
            throw SystemError("connect \(path)")
        }
    }

    /// `accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)`; nil when no
    /// connection is waiting.
    public static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
        while true {
            let client = monkey_accept_nonblocking(fd)
            if client >= 0 { return client }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ECONNABORTED: return nil
            default: throw SystemError("accept4")
            }
        }
    }

    public enum ReadResult: Equatable, Sendable {
        case bytes(Int)
        case wouldBlock
        case endOfFile
    }

    /// `read(2)` into the buffer.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemError("read")
            }
        }
    }

    /// `send(fd, bytes, count, MSG_NOSIGNAL)`: a vanished peer is an error,
    /// never a SIGPIPE. Returns the bytes written (0 when it would block).
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        guard bytes.count > 0 else { return 0 }
        while true {
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw SystemError("send")
            }
        }
    }

    /// Writes all bytes to a blocking descriptor, resuming after short writes.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) in try send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            let written = try result.get()
            guard written > 0 else { throw SystemError("send", errno: EAGAIN) }
            offset += written
        }
    }

    /// `close(2)`; errors are ignored, as the descriptor is gone either way.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// `shutdown(fd, SHUT_WR)`
    public static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// `shutdown(fd, SHUT_RDWR)`: the peer sees the end both ways, though
    /// the descriptor stays open here.
    public static func shutdownBoth(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// `unlink(2)`
    public static func unlink(_ path: String) throws(SystemError) {
        guard Glibc.unlink(path) == 0 else { throw SystemError("unlink \(path)") }
    }

    /// `mkdir(2)`; an existing directory is not an error.
    public static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) {
        if Glibc.mkdir(path, mode) == 0 || errno == EEXIST { return }
        throw SystemError("mkdir \(path)")
    }

    /// `mkdir -p`: creates the directory and its missing parents.
    public static func makeDirectories(_ path: String, mode: mode_t) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += component
            try makeDirectory(prefix, mode: mode)
            prefix += "/"
        }
    }

    /// `umask(2)`; returns the previous mask.
    @discardableResult
    public static func setUmask(_ mask: mode_t) -> mode_t {
        Glibc.umask(mask)
    }

    /// `chmod(2)`
    public static func changeMode(_ path: String, _ mode: mode_t) throws(SystemError) {
        guard Glibc.chmod(path, mode) == 0 else { throw SystemError("chmod \(path)") }
    }

    /// `chown(path, -1, gid)`
    public static func changeGroup(_ path: String, _ gid: gid_t) throws(SystemError) {
        guard Glibc.chown(path, uid_t.max, gid) == 0 else { throw SystemError("chown \(path)") }
    }

    /// `lstat(2)`: true if something exists at the path.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return Glibc.lstat(path, &info) == 0
    }

    /// `lstat(2)`: true if the path is a socket.
    public static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return Glibc.lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// `getrandom(2)`: 64 bits from the kernel, for seeding.
    public static func randomSeed() -> UInt64 {
        var seed: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &seed) { monkey_getrandom($0.baseAddress, 8) }
        return seed
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds; the same clock as
    /// `DispatchTime.uptimeNanoseconds`.
    public static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// `clock_gettime(CLOCK_REALTIME)` in seconds since the Unix epoch.
    public static func wallClockSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `geteuid(2)`
    public static func effectiveUserID() -> uid_t { geteuid() }

    /// `getgrnam(3)`: the gid of a group, if it exists.
    public static func groupID(named name: String) -> gid_t? {
        guard let group = getgrnam(name) else { return nil }
        return group.pointee.gr_gid
    }

    /// `getpwuid(3)`: the home directory of a user.
    public static func homeDirectory(of uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home)
    }

    /// `getenv(3)`
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Line-buffers stdout and stderr (`setvbuf`), so that nothing is lost
    /// when the output is a pipe or a journal stream.
    public static func lineBufferStandardStreams() {
        monkey_line_buffer_stdio()
    }

    /// `mallopt(M_ARENA_MAX, 1)`: every thread created from now on allocates
    /// from the main heap. glibc grows another thread's heap by exactly what
    /// each allocation lacks, one `mprotect` at a time: the daemon's queue,
    /// whose logs grow by about 4 MB a second at 10,000 sessions, made about
    /// 1,000 of those calls a second (3 % of its time); the main heap grows
    /// with headroom, about 40 times a second. The daemon has few threads,
    /// and small allocations come from per-thread caches, so they seldom
    /// wait for one another on the one heap.
    public static func useOneMallocArena() {
        _ = monkey_use_one_malloc_arena()
    }

    /// `signal(sig, SIG_IGN)`: the signal is ignored (SIGPIPE: a peer that
    /// went away is an error of `send`, never a signal).
    public static func ignoreSignal(_ signal: Int32) {
        _ = Glibc.signal(signal, SIG_IGN)
    }

    /// `isatty(3)`
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// `_exit(2)`-free process exit, flushing stdio (`exit(3)`).
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}

extension Syscalls {
    /// `fcntl(fd, F_SETFL, flags | O_NONBLOCK)`
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SystemError("fcntl O_NONBLOCK") }
    }
}
