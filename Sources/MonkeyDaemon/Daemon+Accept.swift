import Dispatch
import MonkeyCore
import MonkeyShell

/// Accepting connections: the client limit, peer credentials, and backing
/// off when the system runs out of descriptors.
extension Daemon {
    /// How long the listener rests after `accept` fails (EMFILE, ENFILE,
    /// ENOBUFS...): the listener is level-triggered, so retrying at once
    /// would spin on the same error.
    static let acceptBackoffMilliseconds = 100

    func acceptConnections() {
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard let accepted = try Syscalls.accept(listener.fd) else { return }
                fd = accepted
            } catch {
                pauseAccepting(after: error)
                return
            }
            if controlClientCount >= engine.limits.maximumClients {
                refuse(fd)
                continue
            }
            let token = nextToken
            nextToken += 1
            let connection = Connection(
                fd: fd, token: token, peer: peerOf(fd), maximumLineLength: engine.limits.maximumLineLength)
            do {
                try poller.add(fd, token: token, interest: .readable)
            } catch {
                events.log(.warning, "cannot watch a new connection: \(error)")
                Syscalls.close(fd)
                continue
            }
            connections[token] = connection
        }
    }

    /// `ERR busy` to a client over the limit, then close: one non-blocking
    /// write into an empty socket buffer, so it never waits.
    private func refuse(_ fd: Int32) {
        refusedControlClients &+= 1
        var refusal: [UInt8] = []
        ResponseEncoder.append(
            .error(ProtocolError(.busy, "too many clients (\(engine.limits.maximumClients)); try again later")),
            to: &refusal)
        _ = refusal.withUnsafeBytes { try? Syscalls.send(fd, $0) }
        // Closing with unread requests queued would reset the connection and
        // the client would lose the line above; what it sent is dropped first.
        _ = readBuffer.withUnsafeMutableBytes { try? Syscalls.read(fd, into: $0) }
        Syscalls.close(fd)
    }

    /// Stops watching the listeners for a while; connections waiting in the
    /// backlog are accepted once it is watched again: when a connection
    /// closes (which frees a descriptor, the usual cure for EMFILE) or after
    /// the back-off time. The timer alone is not enough: out of descriptors,
    /// Dispatch may be unable to arm it.
    func pauseAccepting(after error: SystemError) {
        guard !isAcceptPaused else { return }
        isAcceptPaused = true
        events.log(
            .warning,
            "cannot accept a connection: \(error); pausing for \(Daemon.acceptBackoffMilliseconds) ms or until a client leaves"
        )
        poller.remove(listener.fd)
        if let metricsListener { poller.remove(metricsListener.fd) }
        queue.asyncAfter(deadline: .now() + .milliseconds(Daemon.acceptBackoffMilliseconds)) { [self] in
            wakeUps.note(.acceptRetry)
            resumeAccepting()
        }
    }

    /// Watches the listener again after a pause.
    func resumeAccepting() {
        guard isAcceptPaused, !isShuttingDown else { return }
        isAcceptPaused = false
        do {
            try poller.add(listener.fd, token: Daemon.listenerToken, interest: .readable)
            if let metricsListener {
                try poller.add(metricsListener.fd, token: Daemon.metricsListenerToken, interest: .readable)
            }
        } catch {
            events.log(.error, "cannot watch the listening sockets again: \(error)")
        }
    }

    /// Who the client is and whether it may change state (PRODUCT.md section 6).
    func peerOf(_ fd: Int32) -> Peer {
        guard let credentials = try? PeerCredentials.of(fd) else {
            return Peer(uid: UInt32.max, pid: 0, mayChange: false)
        }
        let mayChange =
            credentials.uid == 0 || credentials.uid == ownUserID
            || privilegedGroup.map { credentials.isMember(of: $0) } == true
        return Peer(uid: credentials.uid, pid: credentials.pid, mayChange: mayChange)
    }
}
