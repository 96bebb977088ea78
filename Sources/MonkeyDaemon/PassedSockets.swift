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
}
