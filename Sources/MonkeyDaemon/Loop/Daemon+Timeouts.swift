import MonkeyCore
import MonkeyShell

/// The idle timeout: a client that sends half a line and then nothing for
/// `idle_timeout` is told so and disconnected; an HTTP connection of the
/// metrics listener is closed `metrics_timeout` after it was accepted. One
/// timer serves all connections and is armed only while some connection
/// holds half a line or an HTTP connection is open, so an idle daemon
/// never wakes up for it.
extension Daemon {
    /// Starts or stops the clock of a connection after it made progress.
    func notePartialLine(_ connection: Connection) {
        guard connection.isWaitingForRestOfLine, !connection.isClosed else {
            connection.partialLineSince = nil
            return
        }
        guard connection.partialLineSince == nil else { return }
        let now = Daemon.now()
        connection.partialLineSince = now
        idleTimer.arm(at: now + configuration.idleTimeout.nanoseconds)
    }

    /// Cuts the connections whose time is up; `idleTimer` calls it disarmed.
    func idleTimerFired() {
        counters.wakeUps.note(.idleTimer)
        runPass { cutIdleConnections() }
    }

    private func cutIdleConnections() {
        let now = Daemon.now()
        let timeout = configuration.idleTimeout.nanoseconds
        var earliest: UInt64?
        for connection in connections.all {
            if case .http(let exchange) = connection.phase {
                // An HTTP connection's whole life is bounded (metrics_timeout).
                if exchange.deadline <= now {
                    if let deadline = timeOut(connection, exchange) { earliest = min(earliest ?? deadline, deadline) }
                } else {
                    earliest = min(earliest ?? exchange.deadline, exchange.deadline)
                }
                continue
            }
            guard let since = connection.partialLineSince else { continue }
            let deadline = since + timeout
            if deadline <= now {
                disconnectIdle(connection)
            } else {
                earliest = min(earliest ?? deadline, deadline)
            }
        }
        if let earliest { idleTimer.arm(at: earliest) }
    }

    /// Says why, without waiting for the client to read it, and closes.
    private func disconnectIdle(_ connection: Connection) {
        let seconds = Double(configuration.idleTimeout.nanoseconds) / 1e9
        connection.appendStatus(
            .error(
                ProtocolError(
                    .badRequest,
                    "the request line was left unfinished for \(seconds.formatted()) s (idle_timeout); closing the connection"
                )))
        _ = try? connection.output.flush(to: connection.fd)
        close(connection)
    }
}

extension Double {
    /// `1.5`, `60` — no trailing `.0` for whole numbers.
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
