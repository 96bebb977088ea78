import Glibc

/// Descriptors that may be pipes, terminals or files, such as standard
/// input and output (`monkeyctl bridge`).
extension Syscalls {
    /// `write(2)` (`send` is for sockets): the bytes written, 0 when it
    /// would block. A reader gone is `EPIPE`, with SIGPIPE ignored
    /// (`ignoreSignal`).
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        guard bytes.count > 0 else { return 0 }
        while true {
            let count = Glibc.write(fd, bytes.baseAddress, bytes.count)
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw SystemError("write")
            }
        }
    }
}
