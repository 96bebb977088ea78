import MonkeyShell
import MonkeySystemd

/// Which of the sockets systemd passed is the control socket and which the
/// metrics listener, told by their names (`FileDescriptorName=`).
///
/// `FileDescriptorName=` names every socket of a unit, so a drop-in that
/// adds `ListenStream=127.0.0.1:9464` and `FileDescriptorName=metrics` to
/// `monkeyd.socket` names the control socket `metrics` too. The control
/// socket is therefore the first socket not named `metrics` or, when every
/// one is, the first Unix-domain one (the metrics listener is TCP there).
struct PassedSockets: Equatable, Sendable {
    /// A passed socket as far as sorting needs it.
    struct Socket: Equatable, Sendable {
        let fd: Int32
        let name: String
        let isUnixDomain: Bool
    }

    var control: Int32?
    var metrics: Int32?

    static func sort(_ passed: [Socket]) throws(StartupError) -> PassedSockets {
        let name = MetricsListener.socketName
        let control = passed.first { $0.name != name } ?? passed.first { $0.isUnixDomain }
        let metrics = passed.filter { $0.name == name && $0.fd != control?.fd }
        guard metrics.count <= 1 else {
            throw StartupError(
                "systemd passed \(metrics.count) sockets named \(name) besides the control socket; "
                    + "the metrics listener is one socket")
        }
        return PassedSockets(control: control?.fd, metrics: metrics.first?.fd)
    }

    /// Sorts the sockets systemd passed to this process.
    static func sort(_ passed: [Systemd.PassedDescriptor]) throws(StartupError) -> PassedSockets {
        var sockets: [Socket] = []
        for descriptor in passed {
            let isUnixDomain: Bool
            do {
                isUnixDomain = try Systemd.isUnixSocket(descriptor.fd)
            } catch {
                throw StartupError("cannot inspect the socket passed by systemd: \(error)")
            }
            sockets.append(Socket(fd: descriptor.fd, name: descriptor.name, isUnixDomain: isUnixDomain))
        }
        return try sort(sockets)
    }

    /// What a passed socket is used as.
    enum Role {
        case control
        case metrics

        /// How the messages name it.
        var name: String {
            switch self {
            case .control: "socket"
            case .metrics: "metrics socket"
            }
        }
    }

    /// Checks that a socket systemd passed is what its role needs (a
    /// listening Unix stream socket for control, a listening stream socket
    /// for the metrics) and makes it non-blocking; the one check of both.
    static func adopt(_ fd: Int32, as role: Role) throws(StartupError) -> Int32 {
        let isUsable: Bool
        do {
            switch role {
            case .control: isUsable = try Systemd.isListeningUnixSocket(fd)
            case .metrics: isUsable = try Systemd.isListeningStreamSocket(fd)
            }
        } catch {
            throw StartupError("cannot inspect the \(role.name) passed by systemd: \(error)")
        }
        guard isUsable else {
            let wanted = role == .control ? "a listening Unix stream socket" : "a listening stream socket"
            throw StartupError("the \(role.name) passed by systemd (fd \(fd)) is not \(wanted)")
        }
        do {
            try Syscalls.setNonBlocking(fd)
        } catch {
            throw StartupError("cannot use the \(role.name) passed by systemd", error)
        }
        return fd
    }
}
