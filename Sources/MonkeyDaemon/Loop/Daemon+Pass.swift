import MonkeyCore

/// The loop's passes: every wake-up of the queue that may change state or
/// write to a connection (the poller, each of its waits; the tick timer;
/// the wait and idle timers) is one pass, run by `runPass`, which ends it
/// with `endOfPass`, and nothing else calls that. A pass starts with
/// nothing to commit: the end of the one before committed it all.
extension Daemon {
    /// Runs `work` as one pass of the loop, then the end of the pass.
    func runPass(_ work: () -> Void) {
        work()
        endOfPass()
    }

    /// What must happen after a pass and before any tick runs or the queue
    /// sleeps, in this order:
    ///
    /// 1. Followers whose entries a tick held back to share a write, and
    ///    whose write is now due (`TickPlan.writesFollowerNow`), are queued
    ///    to be serviced.
    /// 2. The changes the pass read are committed together
    ///    (`commitGroup`): one write and one sync, then their answers sent,
    ///    then their events recorded.
    /// 3. Every connection the pass wrote to, released or ended is
    ///    serviced, once (`PassState.touch`); lines it still holds may be
    ///    changes, which go back to 2.
    /// 4. The control log is compacted, if that is due.
    /// 5. If sessions changed or typed: systemd's status and the sync
    ///    timer; if the schedule may have moved: the tick timer.
    ///
    /// Typing merged into the sessions (the ticks today) is the work of a
    /// pass of its own, never of this step: no entry may be typed under a
    /// change that may still be taken back.
    private func endOfPass() {
        if !subscriptions.heldBack.isEmpty {
            for connection in subscriptions.takeDueWrites(now: Daemon.now(), nextTick: engine.nextDeadline()) {
                pass.touch(connection)
            }
            pass.movesTickTimer = true
        }
        settle()
        // Committed: flat-out sessions started or changed may type.
        if pass.changedState { feedTypingPool() }
        if store.policy.wantsSnapshot {
            store.compact(
                engine.snapshots, nextEpoch: engine.nextEpoch, nextEventID: eventLog.nextID, replyingOn: queue)
        }
        if pass.changedState && !isShuttingDown {
            systemd.statusMayHaveChanged(now: Daemon.now())
            armSyncTimer()
        }
        if pass.movesTickTimer { rearmTimer() }
        pass.finish()
    }

    /// Steps 2 and 3 of `endOfPass`, until nothing is left to commit or to
    /// service.
    func settle() {
        while true {
            if !commits.isEmpty {
                commitGroup()
            } else if pass.hasTouched {
                serviceTouched()
            } else {
                break
            }
        }
    }

    /// Makes every change read since the last commit durable with one write
    /// and one sync (group commit), then ends the followers they end,
    /// sends their answers and only then records their events: each
    /// client reads its answer and sends its next request while the daemon
    /// logs. If the disk refuses, every change of the group is taken back
    /// and answered `ERR storage-error` instead (see `GroupCommit`).
    private func commitGroup() {
        let group = commits.commit(to: store, engine: &engine, counts: &counters.requests)
        // By index: a loop over the elements copies each change whole.
        for index in group.changes.indices {
            if group.isCommitted, let (session, status) = group.changes[index].endsFollowers {
                endFollowers(of: session, with: status)
            }
            pass.touch(group.changes[index].connection)
        }
        serviceTouched()
        if group.isCommitted { record(group.changes.compactMap(\.event)) }
        commits.recycle(group)
        pass.changedState = true
        pass.movesTickTimer = true
    }

    /// Services the connections touched so far, each once.
    private func serviceTouched() {
        let touched = pass.takeTouched()
        for connection in touched where !connection.isClosed { service(connection) }
        pass.recycle(touched)
    }

    /// Points the tick timer at the earliest due tick, lets it repeat while
    /// ticks are dense, or parks it when nothing types (see `TickTimer`).
    func rearmTimer() {
        var deadline = engine.nextDeadline()
        // Held-back follower writes must not wait for a tick that may never come.
        if let write = subscriptions.nextHeldBackWrite { deadline = min(deadline ?? .max, write) }
        // A repeating timer keeps the phase of the deadline it starts from,
        // which must be a tick's (on the grid), not a held-back write's.
        let period = subscriptions.heldBack.isEmpty ? engine.plan.timerPeriod : nil
        tickTimer.rearm(for: deadline, now: Daemon.now(), period: period)
    }
}
