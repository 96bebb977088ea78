import Glibc

/// A failed system call: its C name and errno, with the system's sentence.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(reason)" }

    /// The system's sentence for the errno alone, such as "No space left on device".
    public var reason: String { Self.sentence(errno) }

    /// `strerror(3)`: the one place errno numbers become words.
    public static func sentence(_ number: Int32) -> String {
        String(cString: strerror(number))
    }

    /// The call was interrupted by a signal (EINTR).
    public var isInterrupted: Bool { errno == EINTR }

    /// Nothing listens at the socket path (ENOENT, ECONNREFUSED, ENOTSOCK).
    public var isNobodyListening: Bool { [ENOENT, ECONNREFUSED, ENOTSOCK].contains(errno) }

    /// A live process refused the connection for lack of rights (EACCES, EPERM).
    public var isAccessDenied: Bool { errno == EACCES || errno == EPERM }

    /// The socket exists but nobody accepts on it any more (ECONNREFUSED): a stale socket file.
    public var isConnectionRefused: Bool { errno == ECONNREFUSED }

    /// The other end went away while writing to it (EPIPE, ECONNRESET).
    public var isPeerGone: Bool { errno == EPIPE || errno == ECONNRESET }
}

/// The signals the daemon handles, by the shell's names.
public enum Signal {
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangUp = SIGHUP
    public static let brokenPipe = SIGPIPE
    public static let quit = SIGQUIT
    /// The terminal changed size.
    public static let windowChanged = SIGWINCH
    /// What cannot be caught: the end of a child that would not end.
    public static let kill = SIGKILL
}
