import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// The metrics listener: a TCP socket the daemon binds (`metrics_listen`)
/// or a socket systemd passed with `FileDescriptorName=metrics`. Its
/// clients are HTTP connections (`Connection.Phase.http`).
struct MetricsListener {
    let fd: Int32
    /// Where it listens, for the log: `http://127.0.0.1:9464/metrics`.
    let description: String

    /// The name systemd gives the metrics socket (`FileDescriptorName=`).
    static let socketName = "metrics"

    /// Adopts the socket systemd passed.
    static func adopt(_ fd: Int32) throws(StartupError) -> MetricsListener {
        let fd = try PassedSockets.adopt(fd, as: .metrics)
        return MetricsListener(fd: fd, description: "\(describe(fd) ?? "the socket") passed by systemd")
    }

    /// Binds and listens on `address`.
    static func create(_ address: ListenAddress) throws(StartupError) -> MetricsListener {
        let fd: Int32
        do {
            fd = try Syscalls.tcpListener(
                address.family == .ipv4 ? .ipv4 : .ipv6, address: address.bytes, port: address.port, backlog: 511)
        } catch {
            throw StartupError("cannot listen for metrics on \(address) (metrics_listen)", error)
        }
        return MetricsListener(fd: fd, description: describe(fd) ?? "http://\(address)/metrics")
    }

    /// `http://HOST:PORT/metrics` for a TCP socket, with the port the
    /// kernel chose if it was asked for port 0.
    private static func describe(_ fd: Int32) -> String? {
        guard let local = Syscalls.localTCPAddress(fd) else { return nil }
        let family: ListenAddress.Family = local.family == .ipv4 ? .ipv4 : .ipv6
        let address = ListenAddress(family: family, bytes: local.address, port: local.port)
        return "http://\(address)/metrics"
    }
}
