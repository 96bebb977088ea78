import Dispatch
import MonkeyCore
import MonkeyShell

/// Accepting connections, from the control socket and the metrics
/// listener alike: the client limits, peer credentials, and backing off
/// when the system runs out of descriptors.
extension Daemon {
    /// How long the listeners rest after `accept` fails (EMFILE, ENFILE,
    /// ENOBUFS...): they are level-triggered, so retrying at once would
    /// spin on the same error.
    static let acceptBackoffMilliseconds = 100

    /// Accepts what waits on one listener, up to 64 at a time. A client
    /// over the limit (`max_clients`, `max_metrics_clients`) is told why
    /// and closed; a metrics client is timed from its accept
    /// (`metrics_timeout`).
    func acceptConnections(from kind: Listeners.Kind) {
        guard let listener = listeners.fd(kind) else { return }
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard let accepted = try Syscalls.accept(listener) else { return }
                fd = accepted
            } catch {
                pauseAccepting(after: error)
                return
            }
            let connection: Connection
            switch kind {
            case .control:
                if connections.controlCount >= engine.limits.maximumClients {
                    refuse(fd)
                    continue
                }
                connection = Connection(
                    fd: fd, token: connections.makeToken(), peer: listeners.peer(of: fd),
                    maximumLineLength: engine.limits.maximumLineLength)
            case .metrics:
                if connections.httpCount >= configuration.maximumMetricsClients {
                    refuseHTTP(fd)
                    continue
                }
                connection = Connection(
                    fd: fd, token: connections.makeToken(), peer: Listeners.httpPeer,
                    maximumLineLength: engine.limits.maximumLineLength)
                let deadline = Daemon.now() + configuration.metricsTimeout.nanoseconds
                connection.phase = .http(HTTPExchange(stage: .receiving(HTTPRequestReader()), deadline: deadline))
            }
            do {
                try poller.add(fd, token: connection.token, interest: .readable)
            } catch {
                sink.log(.warning, "cannot watch a new connection: \(error)")
                Syscalls.close(fd)
                continue
            }
            connections.insert(connection)
            if case .http(let exchange) = connection.phase { idleTimer.arm(at: exchange.deadline) }
        }
    }

    /// `ERR busy` to a client over the limit, then close: one non-blocking
    /// write into an empty socket buffer, so it never waits.
    private func refuse(_ fd: Int32) {
        counters.refusedControlClients &+= 1
        var refusal: [UInt8] = []
        ResponseEncoder.append(
            .error(ProtocolError(.busy, "too many clients (\(engine.limits.maximumClients)); try again later")),
            to: &refusal)
        _ = refusal.withUnsafeBytes { try? Syscalls.send(fd, $0) }
        // Closing with unread requests queued would reset the connection and
        // the client would lose the line above; what it sent is dropped first.
        _ = scratch.read.withUnsafeMutableBytes { try? Syscalls.read(fd, into: $0) }
        Syscalls.close(fd)
    }

    /// `503` to a client over the limit, then close: as for the control
    /// socket, one non-blocking write into an empty socket buffer, what the
    /// client sent already read first so that closing does not reset the
    /// connection before the client reads why.
    private func refuseHTTP(_ fd: Int32) {
        counters.refusedMetricsClients &+= 1
        counters.httpResponses.note(.serviceUnavailable)
        _ = scratch.read.withUnsafeMutableBytes { try? Syscalls.read(fd, into: $0) }
        let refusal = HTTPResponse.refusal(
            .serviceUnavailable,
            "\(configuration.maximumMetricsClients) metrics clients are connected (max_metrics_clients)",
            date: Self.httpDate(), retryAfter: 1)
        _ = refusal.withUnsafeBytes { try? Syscalls.send(fd, $0) }
        Syscalls.shutdownWrite(fd)
        Syscalls.close(fd)
    }

    /// Stops watching the listeners for a while; connections waiting in the
    /// backlog are accepted once they are watched again: when a connection
    /// closes (which frees a descriptor, the usual cure for EMFILE) or after
    /// the back-off time. The timer alone is not enough: out of descriptors,
    /// Dispatch may be unable to arm it.
    func pauseAccepting(after error: SystemError) {
        guard !listeners.isPaused else { return }
        listeners.isPaused = true
        sink.log(
            .warning,
            "cannot accept a connection: \(error); pausing for \(Daemon.acceptBackoffMilliseconds) ms or until a client leaves"
        )
        poller.remove(listeners.control.fd)
        if let metrics = listeners.metrics { poller.remove(metrics.fd) }
        queue.asyncAfter(deadline: .now() + .milliseconds(Daemon.acceptBackoffMilliseconds)) { [self] in
            counters.wakeUps.note(.acceptRetry)
            resumeAccepting()
        }
    }

    /// Watches the listeners again after a pause.
    func resumeAccepting() {
        guard listeners.isPaused, !isShuttingDown else { return }
        listeners.isPaused = false
        do {
            try poller.add(listeners.control.fd, token: PollToken.controlListener, interest: .readable)
            if let metrics = listeners.metrics {
                try poller.add(metrics.fd, token: PollToken.metricsListener, interest: .readable)
            }
        } catch {
            sink.log(.error, "cannot watch the listening sockets again: \(error)")
        }
    }
}
