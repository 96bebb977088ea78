import Dispatch
import MonkeyCore
import MonkeyShell

/// Typing: one timer for all sessions, and fan-out of new entries to followers.
extension Daemon {
    func tickTimerFired() {
        tickTimerState.fired()
        runTicksIfDue()
        flushFollowers([], now: Daemon.now())
        rearmTimer()
    }

    func runTicksIfDue() {
        let now = Daemon.now()
        guard let deadline = engine.nextDeadline(), deadline <= now + engine.coalescingWindow else { return }
        var touched: [Connection] = []
        let limit = engine.limits.maximumPendingOutput
        let logsTyped = configuration.logTyped
        let hits = engine.runDueTicks(now: now) { name, entry, isFollowed in
            if logsTyped { events.record(typedEvent(name, entry)) }
            // Most sessions have no follower: no name is hashed for them.
            guard isFollowed, let tokens = followers[name] else { return }
            lineScratch.removeAll(keepingCapacity: true)
            ResponseEncoder.appendEntry(entry, session: name, to: &lineScratch)
            for token in tokens {
                guard let connection = connections[token], entry.id > connection.followsAfterID else { continue }
                if connection.output.isEmpty { touched.append(connection) }
                deliver(lineScratch, to: connection, limit: limit)
            }
        }
        for event in hits { events.record(event) }
        statusMayHaveChanged()
        flushFollowers(touched, now: now)
        armSyncTimer()
        rearmTimer()
    }

    /// Writes new entries to followers: at once to a follower written to
    /// longer than `followerWriteSpacing` ago, otherwise at the first tick
    /// after that spacing (or now, if no tick comes before it). A follower
    /// of a slow session gets each entry immediately; one of a 1 kHz session
    /// gets a few entries per write instead of one write per entry.
    func flushFollowers(_ touched: [Connection], now: UInt64) {
        deferredFollowers += touched
        guard !deferredFollowers.isEmpty else { return }
        let nextTick = engine.nextDeadline() ?? .max
        var stillDeferred: [Connection] = []
        for connection in deferredFollowers where connections[connection.token] != nil {
            let writeDue = connection.lastFollowerWrite &+ Daemon.followerWriteSpacing
            if now >= writeDue || nextTick > writeDue {
                connection.lastFollowerWrite = now
                service(connection)
            } else {
                stillDeferred.append(connection)
            }
        }
        deferredFollowers = stillDeferred
    }

    /// Queues an entry line for a follower, or counts it as lost when the
    /// follower is not reading; it resumes once half its buffer is free.
    private func deliver(_ line: [UInt8], to connection: Connection, limit: Int) {
        if connection.isSkipping {
            guard connection.output.pendingCount <= limit / 2 else {
                connection.lostCount += 1
                return
            }
            connection.output.withBytes { output in
                ResponseEncoder.append(
                    Record(type: "lost", fields: [("count", String(connection.lostCount))]), to: &output)
            }
            connection.lostCount = 0
            connection.isSkipping = false
        }
        guard connection.output.pendingCount + line.count <= limit else {
            connection.isSkipping = true
            connection.lostCount += 1
            return
        }
        connection.output.append(line)
    }

    /// Points the one timer at the earliest due tick, lets it repeat while
    /// ticks are dense, or parks it when nothing types (see `TickTimer`).
    func rearmTimer() {
        var deadline = engine.nextDeadline()
        // Held-back follower writes must not wait for a tick that may never come.
        if let oldest = deferredFollowers.lazy.map(\.lastFollowerWrite).min() {
            deadline = min(deadline ?? .max, oldest &+ Daemon.followerWriteSpacing)
        }
        guard let timer = tickTimer else { return }
        // A repeating timer keeps the phase of the deadline it starts from,
        // which must be a tick's (on the grid), not a held-back write's.
        let period = deferredFollowers.isEmpty ? engine.repeatingPeriod : nil
        let change = tickTimerState.change(for: deadline, now: Daemon.now(), period: period)
        switch change {
        case .none:
            break
        case .repeating(let start, let window):
            timer.schedule(
                deadline: DispatchTime(uptimeNanoseconds: start), repeating: .nanoseconds(Int(window)),
                leeway: .microseconds(500))
        case .once(let deadline):
            timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(500))
        case .park:
            timer.schedule(deadline: .distantFuture)
        }
    }
}
