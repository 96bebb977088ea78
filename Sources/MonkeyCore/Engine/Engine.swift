/// The daemon's state and everything that changes it: requests, ticks and
/// restores. Pure: time and randomness come in as parameters, and what must
/// happen outside (making a change durable, delivering typed entries,
/// logging events, ending followers) goes out in its answers; the engine
/// never calls the daemon.
public struct Engine {
    public static let version = "0.1.0"
    public static let protocolVersion = 1

    public private(set) var limits: Limits
    var sessions = SessionTable()
    var scheduler = TickScheduler()
    var random: WyRand
    /// When sessions tick and the daemon wakes up for them (see `TickPlan`).
    /// Its knobs are set only while no session types.
    public var plan = TickPlan()
    /// The sessions due at one wake-up, kept to save an allocation per wake-up.
    private var dueScratch: [TickScheduler.Item] = []
    /// The slots of sessions that connections follow (`setFollowed`),
    /// whose ticks a wake-up runs first (see `runDueTicks`). Only an order:
    /// a slot left in it after its session went ticks its successor early
    /// in the wake-up, and types what it would have typed anyway.
    var followedSlots = SlotBits()
    /// Types the ticks' entries; its scratch buffers are reused.
    private var typist = Typist()
    /// Flat-out sessions (interval 0), which type on the typing threads
    /// rather than at ticks (see `flatOutJobs`).
    var flatOut = FlatOutRing()
    /// The latest time the engine was told (a request, ticks, a merge):
    /// what STATUS reads rates at.
    public internal(set) var clock: UInt64 = 0
    /// Sessions with flat-out entries not yet handed to the store.
    var unstored: [SessionName] = []
    /// The number of the next flat-out batch (`PoolJob.Ticket`).
    var nextTicket: UInt64 = 1
    /// The sessions in name order as of a `SessionTable.generation`, for
    /// STATUS of every session (see `status(_:)`).
    var sortedSlots: (generation: UInt64?, sessions: [SessionTable.NamedSlot]) = (nil, [])
    /// Odds worked out lately (see `odds(of:)`).
    private var oddsCache: [OddsKey: Odds?] = [:]
    /// How late each tick ran: the wake-up's time minus the tick's due time
    /// (0 for a tick run early, within the coalescing window), for metrics.
    public private(set) var tickLateness = DurationHistogram(bounds: DurationHistogram.latencyBounds)
    /// Ticks never typed: those a session missed while the daemon ran more
    /// than the catch-up window late (`TickPlan.nextDue`), for metrics.
    /// A follower sees them as a shift of the session's phase, not as
    /// late entries.
    public private(set) var ticksSkipped: UInt64 = 0

    struct OddsKey: Hashable {
        let target: String
        let monkeys: Int
        let alphabet: String
    }

    /// The epoch the next new or cleared session gets (see `Session.epoch`).
    public internal(set) var nextEpoch: UInt64 = 1
    /// Who may change state, completing "… may" in the `denied` message;
    /// the daemon fills in its uid and group.
    public var accessRule = "only root, the daemon's user and members of group monkeyd may"

    struct ScheduledSession: Sendable {
        var session: Session
        /// The id of the next entry the store must see with the session's
        /// own bookkeeping (`TypedEntry.needsAttention`); it says which one
        /// after each (`setAttention`). With thousands of sessions, reaching
        /// each one's bookkeeping at every tick was a cache miss per entry.
        /// 0 after every change: the store then sees the next entry.
        var attentionID: UInt64 = 0
        /// The id from which a flat-out batch's entries go to the store at
        /// once rather than at the next sync: the store must see them for
        /// a reservation (`DurabilityPolicy.Attention.nextReservationID`).
        /// Never below `attentionID`; 0 with it after every change.
        var reservationAttentionID: UInt64 = 0
        /// Connections follow it (see `setFollowed`).
        var isFollowed = false
        /// Its name's hash for the journal's grouping (`JournalBatch.nameHash(of:)`):
        /// the name of a slot's session never changes.
        let journalNameHash: UInt64
        /// What it typed, for metrics: counters that never go down, unlike
        /// `typed` and `hits`, which CLEAR resets. Entries and hits start
        /// from the restored counters, so that they agree with STATUS until
        /// the first CLEAR and a restart does not read as a reset;
        /// characters (which STATUS does not count) from 0.
        var entriesTyped: UInt64
        var charactersTyped: UInt64 = 0
        var hitsTyped: UInt64
        /// Entries a second lately, for STATUS.
        var rate = RateMeter()
        /// The kernel's tables for its alphabet and target (see `typingTables()`).
        var tables: TypingTables?
        // The fields above are what a timed tick reaches (see `SessionTable.hotBytes`); those below are not.
        /// The odds of its target with its settings (nil: no target),
        /// worked out when they change, never per tick.
        var odds: Odds?
        /// Its flat-out batches on the typing threads.
        var flight = FlatOutFlight()
        /// The first id of its flat-out entries merged but not yet handed
        /// to the store; nil when there are none.
        var unstoredFrom: UInt64?
        /// A corpus session's corpus and coverage (see `CorpusRun`).
        var corpus: CorpusRun?

        init(session: Session, odds: Odds?) {
            self.session = session
            journalNameHash = JournalBatch.nameHash(of: session.name)
            self.entriesTyped = session.typed
            self.hitsTyped = session.hits
            self.odds = odds
        }
    }

    public init(limits: Limits, seed: UInt64) {
        self.limits = limits
        self.random = WyRand(seed: seed)
    }

    public var sessionCount: Int { sessions.count }

    /// Puts back a session loaded from the store; typing ones type again.
    /// A corpus session comes back with `corpus`, its works and coverage
    /// as the store kept them (nil: none could be had).
    public mutating func restore(_ session: Session, now: UInt64, corpus: CorpusRun? = nil) -> Event {
        var session = session
        session.setRetention(limits.maximumEntries)
        nextEpoch = max(nextEpoch, session.epoch + 1)
        let name = session.name
        var scheduled = ScheduledSession(session: session, odds: odds(of: session.settings))
        scheduled.corpus = session.settings.isCorpusSession ? corpus : nil
        sessions[name] = scheduled
        if session.isTyping { scheduleFirstTick(name, now: now) }
        return Event(
            .restored(
                Event.Restored(
                    settings: session.settings, isTyping: session.isTyping, entries: session.log.count,
                    nextID: session.nextID, nextNumber: session.nextNumber)),
            session: name)
    }

    /// The odds of a target with these settings. Sessions often share
    /// them (a restart of thousands), and the worst case takes milliseconds:
    /// the last few are kept.
    mutating func odds(of settings: SessionSettings) -> Odds? {
        // Without a target there are no odds: no key to build and hash.
        guard !settings.target.target.isEmpty else { return nil }
        let key = OddsKey(target: settings.target.target, monkeys: settings.monkeys, alphabet: settings.alphabet.text)
        if let known = oddsCache[key] { return known }
        let odds = Odds(target: key.target, monkeys: key.monkeys, alphabet: settings.alphabet)
        if oddsCache.count >= 64 { oddsCache.removeAll(keepingCapacity: true) }
        oddsCache[key] = odds
        return odds
    }

    /// No session gets an epoch below `epoch`: the store may still hold
    /// entries of sessions deleted before the restart.
    public mutating func reserveEpochs(below epoch: UInt64) {
        nextEpoch = max(nextEpoch, epoch)
    }

    /// Applies new limits (a configuration reload); retention applies at once.
    public mutating func update(_ newLimits: Limits) {
        limits = newLimits
        sessions.modifyEach {
            $0.session.setRetention(newLimits.maximumEntries)
            // Retention and the store's own settings decide when it must see an entry.
            $0.attentionID = 0
            $0.reservationAttentionID = 0
        }
    }

    public func session(named name: SessionName) -> Session? {
        sessions[name]?.session
    }

    public var sessionNames: [SessionName] { sessions.keys.sorted() }

    /// A session's state without its entries, as it is now: what the store
    /// writes for a change (see `Effect`).
    public func snapshot(of name: SessionName) -> SessionSnapshot? {
        guard let slot = sessions.slot(of: name) else { return nil }
        return sessions.read(slot: slot) { $0.session.snapshot }
    }

    /// Every session's state without its entries, in no order.
    public var snapshots: [SessionSnapshot] {
        sessions.reduce([SessionSnapshot]()) { snapshots, session in snapshots.append(session.snapshot) }
    }

    /// Totals for the daemon's one-line status.
    public var summary: (sessions: Int, typing: Int, typed: UInt64, hits: UInt64) {
        let totals = sessions.reduce((typing: 0, typed: UInt64(0), hits: UInt64(0))) { totals, session in
            if session.isTyping { totals.typing += 1 }
            totals.typed += session.typed
            totals.hits += session.hits
        }
        return (sessions.count, totals.typing, totals.typed, totals.hits)
    }

    // MARK: Ticks

    /// When the timer should next fire, or nil when nothing is typing.
    /// Drops stale schedule items on the way, so that a stopped session
    /// costs no wake-up.
    public mutating func nextDeadline() -> UInt64? {
        while let earliest = scheduler.peek() {
            if Self.isCurrent(earliest, in: sessions) { return earliest.due }
            _ = scheduler.popDue(by: earliest.due)
        }
        return nil
    }

    /// Whether a schedule item is its session's next tick: the session is
    /// due at that time and timed. A flat-out session has a due time on the
    /// tick grid too but no tick, so an item left from when it was timed
    /// (or from a change to timed that was taken back) may carry the same
    /// time and must not count.
    static func isCurrent(_ item: TickScheduler.Item, in sessions: SessionTable) -> Bool {
        sessions.due(ofSlot: item.slot) == item.due
            && sessions.read(slot: item.slot, { $0.session.settings.interval.nanoseconds > 0 }) == true
    }

    /// Types one entry for every session due by `now` (see `TickPlan` for
    /// how early a tick may run), appending each to `typed` for the daemon
    /// to deliver, and reschedules them; then, round by round, the ticks a
    /// stall made them miss within the catch-up window, which are made up
    /// at once (a repeating timer would serve them only at its next period,
    /// and a session once a period behind would stay behind). Returns the
    /// events (hits) to log.
    ///
    /// Sessions that connections follow (`setFollowed`) tick first, and
    /// `afterFollowed` is given their entries (the start of `typed`) before
    /// the others tick: the daemon sends them on at once, so that a
    /// follower's entry does not wait for thousands of other sessions'
    /// ticks of the same wake-up, nor its lateness vary with their number.
    /// It must not reach into the engine.
    public mutating func runDueTicks(
        now: UInt64, into typed: inout [TypedEntry], afterFollowed: (ArraySlice<TypedEntry>) -> Void = { _ in }
    ) -> [Event] {
        var unused = JournalBatch()
        return runDueTicks(now: now, into: &typed, journal: &unused, encodesQuiet: false, afterFollowed: afterFollowed)
    }

    /// The same, with each quiet entry (one the store records in bulk, of
    /// a session nobody follows: `TypedEntry.isQuiet`) appended to
    /// `journal` as it is typed, where the store would append it, and not
    /// to `typed`. With 10,000 sessions ticking, carrying each such entry
    /// to the store as a `TypedEntry` cost about a fifth of a tick, and
    /// encoding it later, when its session had left the caches, another.
    /// A session's quiet entries come before its others of the same call:
    /// an entry needs attention only from an id on, until the store
    /// answers after the call.
    public mutating func runDueTicks(
        now: UInt64, into typed: inout [TypedEntry], journal: inout JournalBatch,
        afterFollowed: (ArraySlice<TypedEntry>) -> Void = { _ in }
    ) -> [Event] {
        runDueTicks(now: now, into: &typed, journal: &journal, encodesQuiet: true, afterFollowed: afterFollowed)
    }

    private mutating func runDueTicks(
        now: UInt64, into typed: inout [TypedEntry], journal: inout JournalBatch, encodesQuiet: Bool,
        afterFollowed: (ArraySlice<TypedEntry>) -> Void
    ) -> [Event] {
        var events: [Event] = []
        var rounds = 0
        repeat {
            runDueTicksOnce(
                now: now, into: &typed, journal: &journal, encodesQuiet: encodesQuiet, events: &events,
                afterFollowed: afterFollowed)
            rounds += 1
        } while rounds < Self.mostCatchUpRounds && (nextDeadline().map { $0 < now } ?? false)
        return events
    }

    /// The most rounds of missed ticks one wake-up makes up: a 1 ms session
    /// within the 20 ms catch-up window misses at most 20.
    static let mostCatchUpRounds = 64

    /// Each session due by `now` ticks once, the followed ones first.
    private mutating func runDueTicksOnce(
        now: UInt64, into typed: inout [TypedEntry], journal: inout JournalBatch, encodesQuiet: Bool,
        events: inout [Event], afterFollowed: (ArraySlice<TypedEntry>) -> Void
    ) {
        clock = max(clock, now)
        // A local copy: the closure below mutates `sessions`, so it may not touch `self`.
        var random = self.random
        defer { self.random = random }
        var typist = Typist()
        swap(&typist, &self.typist)
        defer { swap(&typist, &self.typist) }
        // Taken out of `self` so that it is the buffer's only owner: emptying
        // a shared buffer would allocate a new one at every wake-up.
        var batch: [TickScheduler.Item] = []
        swap(&batch, &dueScratch)
        defer { swap(&batch, &dueScratch) }
        batch.removeAll(keepingCapacity: true)
        // Every due item leaves the scheduler before any goes back, so each
        // session ticks at most once per call. Stale items are told apart in
        // the loop below, which checks each item anyway.
        while let item = scheduler.popDue(by: now &+ plan.coalescingWindow) { batch.append(item) }
        // Sorted by due time and then slot (one due time on the tick grid),
        // the batch walks the session table, and the logs that those sessions
        // allocated as they grew together, from lower addresses to higher:
        // a walk the processor reads ahead of the loop by itself.
        // Sessions go back into the scheduler in the order they tick, so its
        // queue keeps this order and only a batch with newcomers is sorted.
        if !batch.isInIncreasingOrder { batch.sort() }
        let followedCount = Self.moveFollowedFirst(&batch, followedSlots)
        let firstTyped = typed.count
        let plan = self.plan
        for (index, item) in batch.enumerated() {
            if index == followedCount && followedCount > 0 { afterFollowed(typed[firstTyped...]) }
            // Checked again: a session scheduled twice for the same time ticks once.
            guard sessions.due(ofSlot: item.slot) == item.due else { continue }
            let aheadIndex = index &+ Self.prefetchDistance
            let ahead = aheadIndex < batch.count ? batch[aheadIndex].slot : nil
            let next = index &+ 1 < batch.count ? batch[index &+ 1].slot : nil
            let outcome = sessions.withSession(inSlot: item.slot, prefetching: ahead, andBeyond: next) {
                scheduled -> TickOutcome in
                let interval = scheduled.session.settings.interval.nanoseconds
                guard interval > 0 else { return .flatOut }
                guard plan.mayRun(due: item.due, interval: interval, now: now) else { return .notYet }
                // A plain session's tick never reaches into the optional corpus run.
                guard scheduled.session.settings.isCorpusSession else {
                    Engine.tick(
                        &scheduled, now: now, random: &random, typist: &typist, typed: &typed,
                        journal: &journal, encodesQuiet: encodesQuiet, events: &events)
                    return .typed(plan.nextDue(after: item.due, interval: interval, now: now))
                }
                let job = Engine.job(for: &scheduled, count: 1, random: random)
                let result = Engine.type(job, index: scheduled.corpus?.index, with: &typist)
                random = result.batch.random
                Engine.merge(
                    result.batch, matches: result.matches, into: &scheduled, now: now, typed: &typed, events: &events)
                return .typed(plan.nextDue(after: item.due, interval: interval, now: now))
            }
            guard let outcome else { continue }
            if case .flatOut = outcome { continue }
            guard case .typed(let (next, skipped)) = outcome else {
                // Too early for this session's own window: it stays due as it was.
                scheduler.schedule(item.slot, at: item.due)
                continue
            }
            sessions.setDue(next, ofSlot: item.slot)
            scheduler.schedule(item.slot, at: next)
            tickLateness.observe(nanoseconds: now > item.due ? now &- item.due : 0)
            ticksSkipped &+= skipped
        }
        if followedCount > 0 && followedCount == batch.count { afterFollowed(typed[firstTyped...]) }
    }

    /// Moves the items of followed slots to the front of `batch`, each
    /// part keeping its order; returns how many there are.
    private static func moveFollowedFirst(_ batch: inout [TickScheduler.Item], _ followed: SlotBits) -> Int {
        guard !followed.isEmpty else { return 0 }
        var front: [TickScheduler.Item] = []
        var kept = 0
        for index in batch.indices {
            let item = batch[index]
            if followed.contains(item.slot) {
                front.append(item)
            } else {
                batch[kept] = item
                kept += 1
            }
        }
        guard !front.isEmpty else { return 0 }
        batch.removeLast(batch.count - kept)
        batch.insert(contentsOf: front, at: 0)
        return front.count
    }

    /// How many items ahead of its tick a session is brought into the
    /// caches (`SessionTable.withSession(inSlot:prefetching:andBeyond:_:)`);
    /// what its next append reaches beyond it is asked for one item ahead,
    /// reading the session brought in two ticks before. A tick takes about
    /// as long as memory takes to answer: at 2 (and 1) a tick's first read
    /// of its session, and at 3 and 2 its read of the next session's log,
    /// still waited on memory; 4 was no better than 3 (BENCHMARKS.md).
    private static let prefetchDistance = 3

    /// What popping one current heap item did.
    private enum TickOutcome {
        /// Due within the shared window but not within the session's own.
        case notYet
        /// A flat-out session: no tick (an item left from before it was).
        case flatOut
        /// Typed; next due then, having skipped that many ticks (`TickPlan.nextDue`).
        case typed((due: UInt64, skipped: UInt64))
    }

    /// Tells whether connections follow the session, so that ticks of the
    /// many sessions nobody follows need no lookup by name to find out.
    public mutating func setFollowed(_ name: SessionName, _ isFollowed: Bool) {
        guard let slot = sessions.slot(of: name) else { return }
        _ = sessions.withSession(inSlot: slot) { $0.isFollowed = isFollowed }
        if isFollowed { followedSlots.insert(slot) } else { followedSlots.remove(slot) }
    }

    /// The store saw an entry of the session with its bookkeeping (an entry
    /// typed with `needsAttention`) and next needs to see the one with id `id`.
    public mutating func setAttention(_ name: SessionName, from id: UInt64) {
        setAttention(name, DurabilityPolicy.Attention(from: id))
    }

    /// The store saw an entry of the session with its bookkeeping and next
    /// needs to see the ones `attention` says.
    public mutating func setAttention(_ name: SessionName, _ attention: DurabilityPolicy.Attention) {
        guard let slot = sessions.slot(of: name) else { return }
        _ = sessions.withSession(inSlot: slot) {
            $0.attentionID = attention.nextID
            $0.reservationAttentionID = max(attention.nextReservationID, attention.nextID)
        }
    }

    mutating func scheduleFirstTick(_ name: SessionName, now: UInt64) {
        guard let slot = sessions.slot(of: name), let interval = sessions[name]?.session.settings.interval.nanoseconds
        else { return }
        schedule(slot: slot, interval: interval, at: plan.firstDue(interval: interval, now: now))
    }

    private mutating func schedule(slot: Int, interval: UInt64, at due: UInt64) {
        sessions.setDue(due, ofSlot: slot)
        // Flat out: no tick; it types on the typing threads while it has a due time.
        if interval == 0 {
            plan.remove(slot: slot)
            flatOut.insert(slot)
            return
        }
        plan.place(slot: slot, interval: interval)
        scheduler.schedule(slot, at: due)
        if scheduler.count > 2 * sessions.count + 1024 {
            let live = sessions
            scheduler.rebuild { Self.isCurrent($0, in: live) }
        }
    }

    mutating func unschedule(_ name: SessionName) {
        guard let slot = sessions.slot(of: name) else { return }
        sessions.setDue(nil, ofSlot: slot)
        plan.remove(slot: slot)
    }

    /// When the session is due to tick; nil when it does not type.
    func due(of name: SessionName) -> UInt64? {
        sessions.slot(of: name).flatMap { sessions.due(ofSlot: $0) }
    }

    /// Puts a session back as it was before a change, with its schedule.
    mutating func putBack(_ name: SessionName, _ previous: ScheduledSession?, due: UInt64?) {
        unschedule(name)
        if let slot = sessions.slot(of: name) { followedSlots.remove(slot) }
        sessions[name] = previous
        if let slot = sessions.slot(of: name), previous?.isFollowed == true { followedSlots.insert(slot) }
        guard let due, let slot = sessions.slot(of: name), let previous else { return }
        schedule(slot: slot, interval: previous.session.settings.interval.nanoseconds, at: due)
    }

    /// Puts a session back by undoing a change where it lies, then its
    /// schedule as it was (`due`).
    mutating func putBack(_ name: SessionName, due: UInt64?, undoing body: (inout ScheduledSession) -> Void) {
        unschedule(name)
        guard let slot = sessions.slot(of: name),
            let interval = sessions.withSession(
                inSlot: slot,
                { scheduled in
                    body(&scheduled)
                    return scheduled.session.settings.interval.nanoseconds
                }),
            let due
        else { return }
        schedule(slot: slot, interval: interval, at: due)
    }
}

/// One entry typed at a tick, for the daemon to deliver: to the store, to
/// the session's followers, and to the journal when typed entries are logged.
public struct TypedEntry: Sendable {
    public let session: SessionName
    /// The session's epoch, which the entry is stored under.
    public let epoch: UInt64
    public let entry: Entry
    /// Connections follow the session (see `Engine.setFollowed`).
    public let isFollowed: Bool
    /// The store must see this entry with the session's own bookkeeping,
    /// and then say which entry it needs to see next (`Engine.setAttention`);
    /// it records the others in bulk.
    public let needsAttention: Bool
    /// The store takes it now. A flat-out session's entries are handed to
    /// the store at the next sync instead, those still retained then
    /// (`Engine.takeUnstoredEntries`): the others need never be written.
    public var isForStore = true
    /// The session's retained log, of which this is the newest entry,
    /// replaces its entries file (`Engine.takeUnstoredEntries`); always
    /// with `needsAttention`.
    public var replacesEntriesFile = false

    /// Only the store takes it, in bulk: nobody follows its session and the
    /// store needs no look at it (see `Engine.runDueTicks(now:into:journal:afterFollowed:)`).
    public var isQuiet: Bool { !isFollowed && !needsAttention && isForStore }
}
