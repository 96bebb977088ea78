import Glibc

/// A blocking connection to the daemon that reads whole lines: what
/// `monkeyctl` and the integration tests talk through.
public final class ClientConnection {
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var scanned = 0
    private var isAtEnd = false
    /// Whether any byte has come from the other end: for `monkeyctl -H`,
    /// what tells a host never reached from a connection lost later.
    public private(set) var hasReceived = false

    /// Connects to the daemon's socket.
    public init(path: String) throws(SystemError) {
        fd = try Syscalls.unixStreamSocket(nonBlocking: false)
        // Not closed here when this throws: with `fd` set, the object is
        // whole and `deinit` closes it. Closed here too, it was closed
        // twice, the second time whatever another thread had opened under
        // that number meanwhile (a test's client, in a parallel test run).
        try Syscalls.connect(fd, path: path)
    }

    /// Takes over `fd`, a connected stream (one end of a socket pair whose
    /// other end is an ssh child's standard input and output), and closes it when released.
    public init(adopting fd: Int32) {
        self.fd = fd
    }

    deinit { Syscalls.close(fd) }

    /// A whole line has been read from the socket and waits in the buffer.
    public var hasBufferedLine: Bool { buffer.contains(0x0A) }

    /// Sends bytes as they are (a request line must end in LF).
    public func send(_ bytes: [UInt8]) throws(SystemError) {
        try Syscalls.sendAll(fd, bytes)
    }

    public func send(line: String) throws(SystemError) {
        try send(Array((line + "\n").utf8))
    }

    /// The next line without its LF, or nil at end of stream. When
    /// `interruptible`, waits with SIGINT unblocked (see
    /// `Syscalls.catchInterrupts`) and throws `EINTR` when Ctrl-C ends the
    /// wait, so that the caller can react to it (monkeyctl's Ctrl-C).
    public func readLine(interruptible: Bool = false) throws(SystemError) -> String? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                buffer.removeSubrange(0...newline)
                scanned = 0
                return line
            }
            scanned = buffer.count
            if isAtEnd { return nil }
            if interruptible && !Syscalls.waitReadableOrInterrupt(fd) { throw SystemError("ppoll", errno: EINTR) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                hasReceived = true
                buffer.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                isAtEnd = true
                if buffer.isEmpty { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                scanned = 0
                return line
            } else if errno == EINTR && !interruptible {
                continue
            } else {
                throw SystemError("read")
            }
        }
    }
}
