import MonkeyCore

/// WAIT: a connection waits for an event of one session (a hit, a stop,
/// best progress) or its timeout. Waiters are found by session when an
/// event of it happens (`Subscriptions`), so hundreds of them cost nothing
/// per tick; one timer, armed only while some waiter has a timeout, serves
/// the timeouts.
extension Daemon {
    func startWaiting(_ connection: Connection, for wait: WaitRequest) {
        let deadline = wait.timeout.map { Daemon.now() + $0.nanoseconds }
        connection.phase = .waiting(
            Connection.Waiting(
                session: wait.session, condition: wait.condition, deadline: deadline, timeout: wait.timeout))
        subscriptions.wait(connection, on: wait.session)
        if let deadline { waitTimer.arm(at: deadline) }
    }

    /// An event of a session that connections wait for: those whose
    /// condition it meets get it and `OK`; a deletion ends every wait on it.
    func answerWaiters(of record: EventRecord) {
        for connection in subscriptions.waiters(on: record.session) {
            guard case .waiting(let waiting) = connection.phase else { continue }
            if record.kind == .deleted {
                finishWaiting(
                    connection, with: .error(ProtocolError(.noSuchSession, "session \(record.session) was deleted")))
            } else if Engine.meets(record, waiting.condition) {
                connection.output.withBytes { record.append(to: &$0) }
                finishWaiting(connection, with: .ok(nil))
            }
        }
    }

    private func finishWaiting(_ connection: Connection, with status: Status) {
        if case .error(let error) = status {
            counters.requests.note(.wait, error.code)
        } else {
            counters.requests.note(.wait, nil)
        }
        subscriptions.remove(connection, engine: &engine)
        connection.phase = .requests
        connection.appendStatus(status)
        pass.touch(connection)
    }

    /// Ends the waits whose timeout passed; `waitTimer` calls it disarmed.
    func waitTimerFired() {
        counters.wakeUps.note(.waitTimer)
        runPass {
            let now = Daemon.now()
            var earliest: UInt64?
            for connection in subscriptions.allWaiters {
                guard case .waiting(let waiting) = connection.phase, let deadline = waiting.deadline,
                    let timeout = waiting.timeout
                else { continue }
                if deadline <= now {
                    let message = waiting.condition.timeoutMessage(session: waiting.session, timeout: timeout)
                    finishWaiting(connection, with: .error(ProtocolError(.timedOut, message)))
                } else {
                    earliest = min(earliest ?? deadline, deadline)
                }
            }
            if let earliest { waitTimer.arm(at: earliest) }
        }
    }
}
