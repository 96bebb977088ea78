import MonkeyCore

/// WAIT: a connection waits for an event of one session (a hit, a stop,
/// best progress) or its timeout. Waiters are found by session when an
/// event of it happens, so hundreds of them cost nothing per tick; one
/// timer, armed only while some waiter has a timeout, serves the timeouts.
extension Daemon {
    func startWaiting(_ connection: Connection, for wait: WaitRequest) {
        let deadline = wait.timeout.map { Daemon.now() + $0.nanoseconds }
        connection.phase = .waiting(
            Connection.Waiting(
                session: wait.session, condition: wait.condition, deadline: deadline, timeout: wait.timeout))
        waiters[wait.session, default: []].append(connection.token)
        if let deadline { waitTimer.arm(at: deadline) }
    }

    /// An event of a session that connections wait for: those whose
    /// condition it meets get it and `OK`; a deletion ends every wait on it.
    func answerWaiters(of event: StreamEvent) {
        for token in waiters[event.session] ?? [] {
            guard let connection = connections[token], case .waiting(let waiting) = connection.phase else { continue }
            if event.kind == .deleted {
                finishWaiting(
                    connection, with: .error(ProtocolError(.noSuchSession, "session \(event.session) was deleted")))
            } else if Engine.meets(event, waiting.condition) {
                connection.output.withBytes { event.append(to: &$0) }
                finishWaiting(connection, with: .ok(nil))
            }
        }
    }

    private func finishWaiting(_ connection: Connection, with status: Status) {
        if case .error(let error) = status {
            requestCounts.note(.wait, error.code)
        } else {
            requestCounts.note(.wait, nil)
        }
        stopStreaming(connection)
        connection.phase = .requests
        appendStatus(status, to: connection)
        service(connection)
    }

    /// Ends the waits whose timeout passed; `waitTimer` calls it disarmed.
    func waitTimerFired() {
        wakeUps.note(.waitTimer)
        let now = Daemon.now()
        var earliest: UInt64?
        for tokens in Array(waiters.values) {
            for token in tokens {
                guard let connection = connections[token], case .waiting(let waiting) = connection.phase,
                    let deadline = waiting.deadline, let timeout = waiting.timeout
                else { continue }
                if deadline <= now {
                    let message = waiting.condition.timeoutMessage(session: waiting.session, timeout: timeout)
                    finishWaiting(connection, with: .error(ProtocolError(.timedOut, message)))
                } else {
                    earliest = min(earliest ?? deadline, deadline)
                }
            }
        }
        if let earliest { waitTimer.arm(at: earliest) }
    }
}
