import Glibc

/// A failed system call: its C name and errno, with the system's sentence.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }

    public var isWouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}
