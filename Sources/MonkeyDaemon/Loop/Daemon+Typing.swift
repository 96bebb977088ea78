import MonkeyCore

/// Typing: one timer for all sessions, and what each typed entry becomes:
/// a record for the store, lines for followers, a journal entry if asked.
extension Daemon {
    func tickTimerFired() {
        counters.wakeUps.note(.tickTimer)
        runPass {
            tickTimer.fired()
            pass.movesTickTimer = true
            runTicksIfDue()
        }
    }

    /// Runs the ticks that are due. The timer runs those due within the
    /// coalescing window too (`TickPlan.isWorthRunning`), to share its
    /// wake-up; the linger of `pollReady`, which is awake anyway and polls
    /// every millisecond, waits until the earliest is due (`onlyWhenDue`),
    /// so that a long stream (a scrape of every session's metrics) does not
    /// move a whole grid step of ticks ahead of their time. Ticks run in a
    /// pass of their own: changes answered but not yet durable were
    /// committed at the end of the pass before, so no entry is typed under
    /// a change that may still be taken back.
    func runTicksIfDue(onlyWhenDue: Bool = false) {
        let now = Daemon.now()
        guard let deadline = engine.nextDeadline(),
            onlyWhenDue ? deadline <= now : engine.plan.isWorthRunning(deadline: deadline, now: now)
        else {
            return
        }
        scratch.typed.removeAll(keepingCapacity: true)
        // The followed sessions' entries, sent on before the other ticks:
        // not part of `scratch`, which the ticks are writing.
        var sentToFollowers: [Range<Int>] = []
        func sendFollowed(_ followed: ArraySlice<TypedEntry>) {
            sendToFollowersNow(followed)
            sentToFollowers.append(followed.indices)
        }
        // Quiet entries go straight to the store's journal records, unless
        // every entry is to be logged too (`log_typed`).
        let events =
            configuration.logTyped
            ? engine.runDueTicks(now: now, into: &scratch.typed, afterFollowed: sendFollowed)
            : store.withTypedJournal { journal in
                engine.runDueTicks(now: now, into: &scratch.typed, journal: &journal, afterFollowed: sendFollowed)
            }
        deliver(scratch.typed, followersHave: sentToFollowers)
        record(events)
        pass.changedState = true
        pass.movesTickTimer = true
    }

    /// Hands the entries of followed sessions to their followers and writes
    /// to those whose write is due (`TickPlan.writesFollowerNow`, a tick
    /// being due now), before the wake-up's other ticks run; the others
    /// are held back as after any tick. Reaches only the followers: the
    /// engine is ticking. A follower written to is serviced at the end of
    /// the pass, which closes it if the write failed.
    private func sendToFollowersNow(_ followed: ArraySlice<TypedEntry>) {
        var touched: [Connection] = []
        for typed in followed where typed.isFollowed {
            counters.followerEntriesLost &+= subscriptions.deliver(typed, touching: &touched)
        }
        guard !touched.isEmpty else { return }
        subscriptions.holdBack(touched)
        let now = Daemon.now()
        for connection in subscriptions.takeDueWrites(now: now, nextTick: now) {
            _ = try? connection.output.flush(to: connection.fd)
            pass.touch(connection)
        }
    }

    /// Merges a batch the typing threads typed, in a pass of its own, if
    /// its session is as it was when its job was made
    /// (`Engine.merge(_:of:now:into:)`; otherwise it is discarded): its
    /// entries delivered in id order like a tick's; then more jobs. One
    /// batch a pass: requests that came meanwhile are served before the next.
    func typedBatchesFinished() {
        runPass {
            let (result, more) = typingPool.takeResult()
            if more { queue.async { [self] in typedBatchesFinished() } }
            guard let result else { return }
            batchesInFlight -= 1
            guard !isShuttingDown else { return }
            scratch.typed.removeAll(keepingCapacity: true)
            let events = engine.merge(
                result.batch, matches: result.matches, of: result.ticket, now: Daemon.now(), into: &scratch.typed)
            deliver(scratch.typed)
            record(events)
            pass.changedState = true
            feedTypingPool()
        }
    }

    /// Hands the typing threads jobs of flat-out sessions, round robin,
    /// keeping about two a thread queued; a session may have one batch more
    /// in flight than there are threads, so that one session alone keeps
    /// every thread busy while the queue merges.
    /// Jobs are made from committed state only: at the end of a pass,
    /// after its group commit, or after a merge.
    /// What waits for the disk stays bounded without holding typing back:
    /// flat-out entries reach the store only at a sync, those retained.
    func feedTypingPool() {
        guard engine.hasFlatOutSessions, !isShuttingDown else { return }
        let room = 2 * typingPool.threadCount - batchesInFlight
        guard room > 0 else { return }
        let jobs = engine.flatOutJobs(limit: room, perSession: typingPool.threadCount + 1)
        batchesInFlight += jobs.count
        typingPool.submit(jobs)
    }

    /// Delivers a batch of typed entries, in typing order: to the store (in
    /// bulk, or with the session's bookkeeping when `needsAttention`:
    /// `DurabilityPolicy.typed` says whether to compact its entries file or
    /// reserve ids at once), to the journal if `log_typed`, and to the
    /// session's followers, whose writes are held back to share one with
    /// the next tick's (see `Subscriptions.holdBack`).
    /// Entries at the indices `followersHave` were given to their
    /// followers already (`sendToFollowersNow`).
    private func deliver(_ batch: [TypedEntry], followersHave: [Range<Int>] = []) {
        var touched: [Connection] = []
        let logsTyped = configuration.logTyped
        for (index, typed) in batch.enumerated() {
            if typed.isForStore { store(typed) }
            if logsTyped { record(Event(.typed(typed.entry), session: typed.session)) }
            // Most sessions have no follower: no name is hashed for them.
            guard typed.isFollowed, !followersHave.contains(where: { $0.contains(index) }) else { continue }
            counters.followerEntriesLost &+= subscriptions.deliver(typed, touching: &touched)
        }
        if !touched.isEmpty { subscriptions.holdBack(touched) }
    }

    /// Hands an entry to the store: in bulk, or with the session's
    /// bookkeeping when `needsAttention`.
    private func store(_ typed: TypedEntry) {
        if typed.needsAttention {
            if let session = engine.session(named: typed.session) {
                engine.setAttention(typed.session, store.append(typed, of: session))
            }
        } else {
            store.record(typed)
        }
    }

    /// Hands the store the flat-out entries still retained that it has not
    /// seen (`Engine.takeUnstoredEntries`): before each sync and at shutdown.
    func storeFlatOutEntries() {
        guard engine.hasUnstoredEntries else { return }
        scratch.typed.removeAll(keepingCapacity: true)
        engine.takeUnstoredEntries(into: &scratch.typed)
        for typed in scratch.typed { store(typed) }
        scratch.typed.removeAll(keepingCapacity: true)
    }
}
