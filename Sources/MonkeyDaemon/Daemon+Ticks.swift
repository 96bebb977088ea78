import Dispatch
import MonkeyCore
import MonkeyShell

/// Typing: one timer for all sessions, and what each typed entry becomes:
/// a record for the store, lines for followers, a journal entry if asked.
extension Daemon {
    func tickTimerFired() {
        wakeUps.note(.tickTimer)
        tickTimerState.fired()
        runTicksIfDue()
        flushFollowers([], now: Daemon.now())
        commitChanges()
        rearmTimer()
    }

    /// Runs the ticks that are due. The timer runs those due within the
    /// coalescing window too (`TickPlan.isWorthRunning`), to share its
    /// wake-up; the linger of `pollReady`, which is awake anyway and polls
    /// every millisecond, waits until the earliest is due (`onlyWhenDue`),
    /// so that a long stream (a scrape of every session's metrics) does not
    /// move a whole grid step of ticks ahead of their time.
    func runTicksIfDue(onlyWhenDue: Bool = false) {
        // Changes answered but not yet durable are committed first: no
        // entry is typed under a change that may still be taken back.
        commitChanges()
        let now = Daemon.now()
        guard let deadline = engine.nextDeadline(),
            onlyWhenDue ? deadline <= now : engine.plan.isWorthRunning(deadline: deadline, now: now)
        else {
            return
        }
        typedScratch.removeAll(keepingCapacity: true)
        let hits = engine.runDueTicks(now: now, into: &typedScratch)
        var touched: [Connection] = []
        let logsTyped = configuration.logTyped
        for typed in typedScratch {
            if typed.needsAttention {
                if let session = engine.session(named: typed.session) {
                    engine.setAttention(typed.session, from: store.append(typed, of: session))
                }
            } else {
                store.record(typed)
            }
            if logsTyped { events.record(typedEvent(typed.session, typed.entry)) }
            // Most sessions have no follower: no name is hashed for them.
            guard typed.isFollowed, let tokens = followers[typed.session] else { continue }
            lineScratch.removeAll(keepingCapacity: true)
            ResponseEncoder.appendEntry(typed.entry, session: typed.session, to: &lineScratch)
            for token in tokens {
                guard let connection = connections[token] else { continue }
                if connection.output.isEmpty { touched.append(connection) }
                deliver(lineScratch, of: typed.entry, to: connection)
            }
        }
        record(hits)
        statusMayHaveChanged()
        flushFollowers(touched, now: now)
        commitChanges()
        armSyncTimer()
        rearmTimer()
    }

    /// Writes new entries to followers as `TickPlan.writesFollowerNow` says:
    /// at once, or held back to share a write with the next tick's.
    func flushFollowers(_ touched: [Connection], now: UInt64) {
        deferredFollowers += touched
        guard !deferredFollowers.isEmpty else { return }
        let nextTick = engine.nextDeadline()
        var stillDeferred: [Connection] = []
        for connection in deferredFollowers where !connection.isClosed {
            guard case .following(var following) = connection.phase else {
                service(connection)
                continue
            }
            if TickPlan.writesFollowerNow(lastWrite: following.lastWrite, now: now, nextTick: nextTick) {
                following.lastWrite = now
                connection.phase = .following(following)
                service(connection)
            } else {
                stillDeferred.append(connection)
            }
        }
        deferredFollowers = stillDeferred
    }

    /// Queues an entry line for a follower, or counts it as lost when the
    /// follower is not reading (see `FollowerBacklog`).
    private func deliver(_ line: [UInt8], of entry: Entry, to connection: Connection) {
        guard case .following(var following) = connection.phase else { return }
        if case .single(_, let afterID) = following.scope, entry.id <= afterID { return }
        let delivery = following.backlog.deliver(length: line.count, pending: connection.output.pendingCount)
        connection.phase = .following(following)
        if let lost = delivery.reportsLost {
            connection.output.withBytes { ResponseEncoder.append(FollowerBacklog.lostRecord(lost), to: &$0) }
        }
        if delivery.writesLine {
            connection.output.append(line)
        } else {
            followerEntriesLost &+= 1
        }
    }

    /// Points the one timer at the earliest due tick, lets it repeat while
    /// ticks are dense, or parks it when nothing types (see `TickTimer`).
    func rearmTimer() {
        var deadline = engine.nextDeadline()
        // Held-back follower writes must not wait for a tick that may never come.
        for connection in deferredFollowers {
            guard case .following(let following) = connection.phase else { continue }
            deadline = min(deadline ?? .max, following.lastWrite &+ TickPlan.followerWriteSpacing)
        }
        guard let timer = tickTimer else { return }
        // A repeating timer keeps the phase of the deadline it starts from,
        // which must be a tick's (on the grid), not a held-back write's.
        let period = deferredFollowers.isEmpty ? engine.plan.timerPeriod : nil
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
