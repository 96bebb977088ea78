/// The daemon's state and everything that changes it: requests, ticks and
/// restores. Pure: time and randomness come in as parameters, durability
/// goes out through the `SessionStore`.
public struct Engine {
    public static let version = "0.1.0"
    public static let protocolVersion = 1

    public private(set) var limits: Limits
    var sessions = SessionTable()
    var scheduler = TickScheduler()
    var random: WyRand
    let store: any SessionStore
    /// How far ahead of its due time a tick may run so that ticks due close
    /// together share one timer wake-up; never more than a sixteenth of the
    /// session's interval, so short intervals keep a steady rhythm.
    public var coalescingWindow: UInt64 = 3_000_000
    /// The finest step of the tick grid (0: no grid; see `TickGrid`):
    /// sessions whose interval is a whole number of it share the few
    /// wake-ups at grid points, and a timer repeating with the grid's period
    /// serves them on time, rather than one waking every `coalescingWindow`.
    /// Set only while no session types.
    public var tickGrid: UInt64 {
        get { grid.base }
        set { grid.base = newValue }
    }
    private var grid = TickGrid(base: 10_000_000)
    /// How late a tick may be and still be made up rather than skipped.
    public var catchUpWindow: UInt64 = 20_000_000
    /// The sessions due at one wake-up, kept to save an allocation per wake-up.
    private var dueScratch: [TickScheduler.Item] = []
    /// Sums what `SessionTable.touch` read, so that the reads are not optimised away.
    private var warmth = 0
    /// How many sessions of a batch are read ahead of typing at a time: enough
    /// for their cache misses to overlap, few enough that what was read is
    /// still in cache when they type. Reading a whole batch of 1,000 ahead,
    /// what was read for the first sessions was evicted again before they typed.
    static let sessionsReadAhead = 64
    /// Slots of typing sessions whose own window (a sixteenth of their
    /// interval) is shorter than `coalescingWindow`.
    private var shortIntervalSlots = Set<Int>()
    /// Who may change state, completing "… may" in the `denied` message;
    /// the daemon fills in its uid and group.
    public var accessRule = "only root, the daemon's user and members of group monkeyd may"

    struct ScheduledSession {
        var session: Session
        /// Where its typed entries go, found once rather than by name at each tick.
        var appender: (any EntryAppender)? {
            didSet { showNextEntryToAppender() }
        }
        /// The id of the next entry the appender must see itself (see
        /// `EntryAppender.append`); earlier ones go straight to the store.
        /// Nil when the store does not keep the session's entries.
        var attentionID: UInt64?
        /// Connections follow it (see `setFollowed`).
        var isFollowed = false

        init(session: Session, appender: (any EntryAppender)?) {
            self.session = session
            self.appender = appender
            showNextEntryToAppender()
        }

        /// The store changed what it keeps about the session (or how it
        /// keeps it): its appender must see the next entry.
        mutating func showNextEntryToAppender() {
            attentionID = appender == nil ? nil : 0
        }
    }

    public init(limits: Limits, seed: UInt64, store: any SessionStore) {
        self.limits = limits
        self.random = WyRand(seed: seed)
        self.store = store
    }

    public var sessionCount: Int { sessions.count }

    /// Puts back a session loaded from the store; typing ones type again.
    public mutating func restore(_ session: Session, now: UInt64) -> Event {
        var session = session
        session.setRetention(limits.maximumEntries)
        let name = session.name
        sessions[name] = ScheduledSession(session: session, appender: store.appender(for: name))
        if session.isTyping { scheduleFirstTick(name, now: now) }
        return Event(
            kind: .restore, session: name,
            fields: Engine.settingsFields(session.settings) + [
                Event.Field("state", session.isTyping ? "running" : "stopped"),
                Event.Field("entries", String(session.log.count)),
                Event.Field("id", String(session.nextID)),
                Event.Field("number", String(session.nextNumber)),
            ], peer: nil,
            message:
                "restored session \(name) (\(session.isTyping ? "typing" : "stopped"), \(session.log.count) entries)")
    }

    /// Applies new limits (a configuration reload); retention applies at once.
    public mutating func update(_ newLimits: Limits) {
        limits = newLimits
        sessions.modifyEach {
            $0.session.setRetention(newLimits.maximumEntries)
            // Retention and the store's own settings decide when it must see an entry.
            $0.showNextEntryToAppender()
        }
    }

    public func session(named name: SessionName) -> Session? {
        sessions[name]?.session
    }

    public var sessionNames: [SessionName] { sessions.keys.sorted() }

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
            if sessions.due(ofSlot: earliest.slot) == earliest.due { return earliest.due }
            _ = scheduler.popDue(by: earliest.due)
        }
        return nil
    }

    /// Types one entry for every session due by `now` (plus the coalescing
    /// window), calling `delivered` for each (with whether the session is
    /// followed), and reschedules them.
    public mutating func runDueTicks(now: UInt64, _ delivered: (SessionName, Entry, Bool) -> Void) -> [Event] {
        var events: [Event] = []
        // A local copy: the closure below mutates `sessions`, so it may not touch `self`.
        var random = self.random
        let store = self.store
        defer { self.random = random }
        // Taken out of `self` so that it is the buffer's only owner: emptying
        // a shared buffer would allocate a new one at every wake-up.
        var batch: [TickScheduler.Item] = []
        swap(&batch, &dueScratch)
        defer { swap(&batch, &dueScratch) }
        batch.removeAll(keepingCapacity: true)
        // Every due item leaves the scheduler before any goes back, so each
        // session ticks at most once per call. Stale items are told apart in
        // the loop below, which checks each item anyway.
        while let item = scheduler.popDue(by: now &+ coalescingWindow) { batch.append(item) }
        // Sorted by due time and then slot (one due time on the tick grid),
        // the batch walks the session table, and the logs that those sessions
        // allocated as they grew together, from lower addresses to higher:
        // a walk the processor reads ahead of the loop by itself.
        // Sessions go back into the scheduler in the order they tick, so its
        // queue keeps this order and only a batch with newcomers is sorted.
        if !batch.isInIncreasingOrder { batch.sort() }
        let window = coalescingWindow
        let catchUpWindow = self.catchUpWindow
        for (index, item) in batch.enumerated() {
            if index % Self.sessionsReadAhead == 0 {
                warmth &+= sessions.touch(batch[index..<min(index + Self.sessionsReadAhead, batch.count)])
            }
            // Checked again: a session scheduled twice for the same time ticks once.
            guard sessions.due(ofSlot: item.slot) == item.due else { continue }
            let outcome = sessions.withSession(inSlot: item.slot) { scheduled -> TickOutcome in
                let interval = scheduled.session.settings.interval.nanoseconds
                guard item.due <= now &+ min(window, interval / 16) else { return .notYet }
                let entry = scheduled.session.type(using: &random)
                var next = item.due + interval
                // Ticks missed by less than the catch-up window (a busy machine
                // ran the timer late) are made up at once, keeping the rate; a
                // daemon further behind (suspended, overloaded) skips them but
                // keeps the session's phase: sessions held up together would
                // otherwise all fall due together from then on.
                if next &+ catchUpWindow <= now { next += ((now - next) / interval + 1) * interval }
                if let attentionID = scheduled.attentionID {
                    if entry.id >= attentionID {
                        scheduled.attentionID = scheduled.appender?.append(entry, to: scheduled.session)
                    } else {
                        store.record(entry, of: scheduled.session.name)
                    }
                }
                return .typed(scheduled.session.name, entry, next, scheduled.isFollowed)
            }
            guard let outcome else { continue }
            guard case .typed(let name, let entry, let next, let isFollowed) = outcome else {
                // Too early for this session's own window: it stays due as it was.
                scheduler.schedule(item.slot, at: item.due)
                continue
            }
            sessions.setDue(next, ofSlot: item.slot)
            scheduler.schedule(item.slot, at: next)
            delivered(name, entry, isFollowed)
            if entry.isHit { events.append(hitEvent(name, entry)) }
        }
        return events
    }

    /// What popping one current heap item did.
    private enum TickOutcome {
        /// Due within the shared window but not within the session's own.
        case notYet
        case typed(SessionName, Entry, UInt64, Bool)
    }

    /// Tells whether connections follow the session, so that ticks of the
    /// many sessions nobody follows need no lookup by name to find out.
    public mutating func setFollowed(_ name: SessionName, _ isFollowed: Bool) {
        sessions[name]?.isFollowed = isFollowed
    }

    /// Whether a typing session may not run a whole `coalescingWindow`
    /// early: then a timer firing every window would make it late.
    public var hasShortIntervals: Bool { !shortIntervalSlots.isEmpty }

    /// How often a timer repeating from the next deadline must fire to run
    /// every typing session's ticks on time, or nil when none can: the
    /// grid's period when all of them tick on the grid, else every
    /// `coalescingWindow` if each may run that much early.
    public var repeatingPeriod: UInt64? {
        if let period = grid.period { return period }
        return hasShortIntervals || coalescingWindow == 0 ? nil : coalescingWindow
    }

    mutating func scheduleFirstTick(_ name: SessionName, now: UInt64) {
        guard let slot = sessions.slot(of: name), let interval = sessions[name]?.session.settings.interval.nanoseconds
        else { return }
        let due = grid.firstDue(interval: interval, now: now)
        sessions.setDue(due, ofSlot: slot)
        if interval / 16 < coalescingWindow {
            shortIntervalSlots.insert(slot)
        } else {
            shortIntervalSlots.remove(slot)
        }
        grid.place(slot: slot, interval: interval)
        scheduler.schedule(slot, at: due)
        if scheduler.count > 2 * sessions.count + 1024 {
            let live = sessions
            scheduler.rebuild { live.due(ofSlot: $0.slot) == $0.due }
        }
    }

    mutating func unschedule(_ name: SessionName) {
        guard let slot = sessions.slot(of: name) else { return }
        sessions.setDue(nil, ofSlot: slot)
        shortIntervalSlots.remove(slot)
        grid.remove(slot: slot)
    }

    private func hitEvent(_ name: SessionName, _ entry: Entry) -> Event {
        let target = sessions[name]?.session.settings.target.target ?? ""
        return Event(
            kind: .hit, session: name,
            fields: [
                Event.Field("target", target), Event.Field("id", String(entry.id)),
                Event.Field("number", String(entry.number)), Event.Field("text", entry.text),
            ], peer: nil, message: "session \(name) typed its target in entry \(entry.number) (id \(entry.id))")
    }

    static func settingsFields(_ settings: SessionSettings) -> [Event.Field] {
        [
            Event.Field("target", settings.target.target), Event.Field("monkeys", String(settings.monkeys)),
            Event.Field("interval", settings.interval.description), Event.Field("alphabet", settings.alphabet.text),
        ]
    }
}
