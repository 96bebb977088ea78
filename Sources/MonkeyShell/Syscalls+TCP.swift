import CShim
import Glibc

/// TCP sockets, for the daemon's metrics listener.
extension Syscalls {
    /// The address families of TCP sockets the daemon makes.
    public enum IPFamily: Sendable {
        /// `AF_INET`
        case ipv4
        /// `AF_INET6`
        case ipv6
    }

    /// `socket(AF_INET or AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)`,
    /// `setsockopt(SO_REUSEADDR)` (a restart binds again while connections
    /// of the last run linger in TIME_WAIT), `bind(2)` to `address` (4 or 16
    /// bytes in network order) and `port`, then `listen(2)`.
    public static func tcpListener(_ family: IPFamily, address: [UInt8], port: UInt16, backlog: Int32)
        throws(SystemError) -> Int32
    {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(
            domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        do throws(SystemError) {
            var yes: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw SystemError("setsockopt SO_REUSEADDR")
            }
            let result = withSocketAddress(family, address: address, port: port) { Glibc.bind(fd, $0, $1) }
            guard result == 0 else { throw SystemError("bind") }
            try listen(fd, backlog: backlog)
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// `getsockname(2)` of a TCP socket: its family, address bytes and
    /// port; nil for a socket of another family.
    public static func localTCPAddress(_ fd: Int32) -> (family: IPFamily, address: [UInt8], port: UInt16)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(as: sockaddr_in.self)
                let bytes = withUnsafeBytes(of: address.sin_addr) { Array($0) }
                return (.ipv4, bytes, UInt16(bigEndian: address.sin_port))
            }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
                return (.ipv6, bytes, UInt16(bigEndian: address.sin6_port))
            }
        default:
            return nil
        }
    }

    /// Runs `body` with a `sockaddr_in` or `sockaddr_in6` for the address.
    private static func withSocketAddress<Result>(
        _ family: IPFamily, address: [UInt8], port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result {
        switch family {
        case .ipv4:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: address.prefix(4)) }
            return withUnsafePointer(to: &socketAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: address.prefix(16)) }
            return withUnsafePointer(to: &socketAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
