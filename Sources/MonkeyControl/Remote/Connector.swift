import MonkeyShell

/// How `monkeyctl` reaches its daemon: the one seam between what it asks
/// (`Runner`, `wait`, `tail -f`, `top`'s channels) and how the bytes
/// travel. Every connection is one descriptor read and written both ways:
/// the daemon's socket here, or one end of a socket pair joined to an ssh
/// child (`SSHTunnel`) with `-H`.
enum Connector: Sendable, Equatable {
    /// The daemon's socket on this machine.
    case socket(String)
    /// The daemon on another host, through ssh and `monkeyctl bridge` there.
    case host(RemoteHost)

    /// Where the daemon is, for people: its socket, or `HOST`.
    var place: String {
        switch self {
        case .socket(let path): path
        case .host(let remote): remote.destination
        }
    }

    var isRemote: Bool {
        if case .host = self { return true }
        return false
    }

    /// A new connection: its descriptor (owned by the caller) and, through ssh, the child behind it.
    func open() throws(ControlFailure) -> (fd: Int32, tunnel: SSHTunnel?) {
        switch self {
        case .socket(let path):
            do {
                return (try Self.connectedSocket(path), nil)
            } catch {
                throw .unreachable(path: path, error: error)
            }
        case .host(let remote):
            let (tunnel, fd) = try SSHTunnel.open(remote)
            return (fd, tunnel)
        }
    }

    private static func connectedSocket(_ path: String) throws(SystemError) -> Int32 {
        let fd = try Syscalls.unixStreamSocket(nonBlocking: false)
        do {
            try Syscalls.connect(fd, path: path)
        } catch {
            Syscalls.close(fd)
            throw error
        }
        return fd
    }

    /// A new connection read a line at a time.
    func connect() throws(ControlFailure) -> DaemonLink {
        let (fd, tunnel) = try open()
        return DaemonLink(connection: ClientConnection(adopting: fd), tunnel: tunnel)
    }
}

/// One connection to a daemon as `Runner` uses it, and, through ssh, the
/// child behind it, which says why a connection failed (`explained`) and
/// is reaped when the connection is closed.
final class DaemonLink {
    let connection: ClientConnection
    let tunnel: SSHTunnel?

    init(connection: ClientConnection, tunnel: SSHTunnel?) {
        self.connection = connection
        self.tunnel = tunnel
    }

    deinit { close() }

    /// `failure` as it looks from here: through ssh, a connection that
    /// ended or broke is told by how ssh ended and what it said.
    func explained(_ failure: ControlFailure) -> ControlFailure {
        guard let tunnel else { return failure }
        return tunnel.explained(failure, hadAnswered: connection.hasReceived, shut: connection.fd)
    }

    /// Ends the connection; through ssh, waits for ssh to end and answers
    /// what it said on standard error (passed on to the user's).
    @discardableResult
    func close() -> [String] {
        guard let tunnel else { return [] }
        Syscalls.shutdownBoth(connection.fd)
        return tunnel.finish().said
    }
}

extension SSHTunnel {
    /// Shuts `fd`, reaps ssh, and answers the failure its ending explains.
    func explained(_ failure: ControlFailure, hadAnswered: Bool, shut fd: Int32) -> ControlFailure {
        switch failure {
        case .connectionLost, .malformedReply:
            Syscalls.shutdownBoth(fd)
            let (ending, said) = finish()
            return RemoteFailure.failure(host: host, ending: ending, said: said, hadAnswered: hadAnswered) ?? failure
        case .usage, .daemon, .unreachable, .hostUnreachable, .hostLost, .interrupted, .someHostsFailed, .hostsDiffer:
            return failure
        }
    }
}
