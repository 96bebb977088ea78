/// Dispatch: one `Request` in, one `Reply` out, the state changed only when
/// the reply is OK.
extension Engine {
    public mutating func handle(_ request: Request, from peer: Peer, now: UInt64) -> Reply {
        clock = max(clock, now)
        if request.verb.changesState && !peer.mayChange {
            return .error(
                .denied, "\(request.verb.rawValue) changes state and uid \(peer.uid) may not: \(accessRule) use it")
        }
        switch request {
        case .ping:
            return Reply(status: .ok("pong"))
        case .hello:
            return Reply(status: .ok("monkeyd version=\(Engine.version) protocol=\(Engine.protocolVersion)"))
        case .help:
            var reply = Reply(status: .ok(nil))
            reply.records = Verb.allCases.map {
                Record(type: "verb", fields: [("name", $0.rawValue), ("usage", $0.usage)])
            }
            return reply
        case .quit:
            var reply = Reply(status: .ok("bye"))
            reply.closesConnection = true
            return reply
        case .start(let name, let change):
            return start(name, change, peer: peer, now: now)
        case .stop(let name):
            return stop(name, peer: peer)
        case .set(let name, let change):
            return set(name, change, peer: peer, now: now)
        case .clear(let name):
            return clear(name, peer: peer)
        case .delete(let name):
            return delete(name, peer: peer)
        case .status(let name):
            return status(name)
        case .log(let patterns, let query):
            if patterns.count == 1, case .name(let name) = patterns[0] { return stream(name, query, follow: false) }
            return tail(patterns, query, follows: false)
        case .tail(let patterns, let query):
            if patterns.count == 1, case .name(let name) = patterns[0] { return stream(name, query, follow: true) }
            return tail(patterns, query, follows: true)
        case .events(let query):
            var reply = Reply(status: nil)
            reply.continuation = .events(query)
            return reply
        case .wait(let name, let condition, let timeout):
            return wait(name, condition, timeout: timeout)
        case .metrics:
            var reply = Reply(status: nil)
            reply.continuation = .metrics(MetricsListing())
            return reply
        case .coverage(let name, let query):
            return coverage(name, query)
        case .corpora(let query):
            return corpora(query)
        }
    }

    private mutating func start(_ name: SessionName, _ change: SettingsChange, peer: Peer, now: UInt64) -> Reply {
        let existing = sessions[name]
        if existing == nil && sessions.count >= limits.maximumSessions {
            return .error(
                .tooManySessions, "the daemon already has \(sessions.count) sessions, its limit; delete one first")
        }
        var session =
            existing?.session
            ?? Session(name: name, settings: .defaults, retention: limits.maximumEntries, epoch: nextEpoch)
        let wasTyping = session.isTyping
        session.apply(change)
        let corpus: (run: CorpusRun?, isFresh: Bool)
        do {
            corpus = try corpusRun(after: change, settings: session.settings, previous: existing?.corpus)
        } catch {
            return .error(error.code, error.message)
        }
        if existing == nil { nextEpoch += 1 }
        if corpus.isFresh { session.startCoverageAfresh() }
        session.isTyping = true
        var reply = Reply(status: nil)
        reply.change = replace(name, with: session, effect: .save(name, epoch: session.epoch))
        sessions[name]?.corpus = corpus.run
        reply.status = .ok(acknowledgement("started \(name)", of: name))
        if !wasTyping || change.interval != nil { scheduleFirstTick(name, now: now) }
        reply.event = Event(
            .started(
                Event.Started(session.settings, created: existing == nil, warning: sessions[name]?.odds?.impossibility)),
            session: name, peer: peer)
        return reply
    }

    private mutating func stop(_ name: SessionName, peer: Peer) -> Reply {
        guard var session = sessions[name]?.session else { return noSuchSession(name) }
        guard session.isTyping else { return Reply(status: .ok("stopped \(name)")) }
        session.isTyping = false
        var reply = Reply(status: .ok("stopped \(name)"))
        reply.change = replace(name, with: session, effect: .save(name, epoch: session.epoch))
        unschedule(name)
        reply.event = Event(.stopped(typed: session.typed), session: name, peer: peer)
        return reply
    }

    private mutating func set(_ name: SessionName, _ change: SettingsChange, peer: Peer, now: UInt64) -> Reply {
        // Changed where it lies, as CLEAR is, and the name looked up once.
        // What the change replaced is kept for `revert`, not the session.
        guard let slot = sessions.slot(of: name) else { return noSuchSession(name) }
        if let settings = sessions.read(slot: slot, { $0.session.settings }), Self.changesCorpus(change, of: settings) {
            return setCorpus(name, change, peer: peer, now: now)
        }
        // Only a target, a number of monkeys or an alphabet changes the
        // odds, and without a target there are none: the settings are
        // copied out only to work them out.
        let changesOdds = change.target != nil || change.monkeys != nil || change.alphabet != nil
        let changed = sessions.withSession(inSlot: slot) { scheduled in
            let undo = scheduled.session.apply(change)
            scheduled.settingsChanged()
            let attentionID = scheduled.attentionID
            // The store must see the session's next entry: what it keeps changes.
            scheduled.attentionID = 0
            scheduled.reservationAttentionID = 0
            let hasTarget = !scheduled.session.settings.target.isEmpty
            return (
                undo: undo, attentionID: attentionID,
                oddsOf: changesOdds && hasTarget ? scheduled.session.settings : nil,
                oldOdds: changesOdds ? scheduled.odds : nil,
                impossibility: changesOdds ? nil : scheduled.odds?.impossibility,
                isTyping: scheduled.session.isTyping, epoch: scheduled.session.epoch
            )
        }
        guard
            case (
                let undo, let attentionID, var newSettings, let oldOdds, var impossibility, let isTyping, let epoch
            )? =
                changed
        else { return noSuchSession(name) }
        if changesOdds {
            let odds = newSettings.take().flatMap { self.odds(of: $0) }
            impossibility = odds?.impossibility
            _ = sessions.withSession(inSlot: slot) { $0.odds = odds }
        }
        var reply = Reply(status: nil)
        reply.change = Change(
            effect: .save(name, epoch: epoch),
            undo: .settings(undo, odds: changesOdds ? .some(oldOdds) : nil, attentionID: attentionID),
            previousDue: sessions.due(ofSlot: slot))
        reply.status = .ok(Self.acknowledgement("updated \(name)", impossibility))
        if isTyping && change.interval != nil { scheduleFirstTick(name, now: now) }
        reply.event = Event(.updated(Event.Updated(change, warning: impossibility)), session: name, peer: peer)
        return reply
    }

    /// A SET that changes what a session covers: the session replaced
    /// whole, as by a START, with the corpus run the change leaves it.
    private mutating func setCorpus(_ name: SessionName, _ change: SettingsChange, peer: Peer, now: UInt64) -> Reply {
        guard let existing = sessions[name] else { return noSuchSession(name) }
        var session = existing.session
        session.apply(change)
        let corpus: (run: CorpusRun?, isFresh: Bool)
        do {
            corpus = try corpusRun(after: change, settings: session.settings, previous: existing.corpus)
        } catch {
            return .error(error.code, error.message)
        }
        if corpus.isFresh { session.startCoverageAfresh() }
        var reply = Reply(status: nil)
        reply.change = replace(name, with: session, effect: .save(name, epoch: session.epoch))
        sessions[name]?.corpus = corpus.run
        reply.status = .ok(acknowledgement("updated \(name)", of: name))
        if session.isTyping && change.interval != nil { scheduleFirstTick(name, now: now) }
        reply.event = Event(
            .updated(Event.Updated(Self.announced(change), warning: sessions[name]?.odds?.impossibility)),
            session: name, peer: peer)
        return reply
    }

    private mutating func clear(_ name: SessionName, peer: Peer) -> Reply {
        // Cleared where it lies: the settings and the odds stay, and only
        // the copy the change keeps for `revert` is made.
        guard let slot = sessions.slot(of: name), let previous = sessions.scheduled(inSlot: slot) else {
            return noSuchSession(name)
        }
        let removed = previous.session.log.count
        let epoch = nextEpoch
        nextEpoch += 1
        let nextID = sessions.withSession(inSlot: slot) { scheduled in
            scheduled.session.clear(epoch: epoch)
            scheduled.corpus?.restart()
            // The store must see the session's next entry: what it keeps changes.
            scheduled.attentionID = 0
            scheduled.reservationAttentionID = 0
            return scheduled.session.nextID
        }
        guard let nextID else { return noSuchSession(name) }
        var reply = Reply(status: .ok("cleared \(name)"))
        reply.change = Change(
            effect: .clear(name, epoch: epoch), previous: previous, previousDue: sessions.due(ofSlot: slot))
        reply.event = Event(.cleared(removed: removed, nextID: nextID), session: name, peer: peer)
        return reply
    }

    private mutating func delete(_ name: SessionName, peer: Peer) -> Reply {
        guard let session = sessions[name]?.session else { return noSuchSession(name) }
        var reply = Reply(status: .ok("deleted \(name)"))
        reply.change = Change(effect: .delete(name), previous: sessions[name], previousDue: due(of: name))
        unschedule(name)
        if let slot = sessions.slot(of: name) { followedSlots.remove(slot) }
        sessions[name] = nil
        reply.endsFollowers = (name, .error(ProtocolError(.noSuchSession, "session \(name) was deleted")))
        reply.event = Event(.deleted(typed: session.typed), session: name, peer: peer)
        return reply
    }

    /// Puts a changed session in place of the old one (or adds it) and
    /// returns the change, which remembers the old one and its schedule.
    /// The store must see the session's next entry: what it keeps changes.
    private mutating func replace(_ name: SessionName, with session: Session, effect: Effect) -> Change {
        guard let slot = sessions.slot(of: name), let previous = sessions.scheduled(inSlot: slot) else {
            sessions[name] = ScheduledSession(session: session, odds: odds(of: session.settings))
            return Change(effect: effect, previous: nil, previousDue: nil)
        }
        let change = Change(effect: effect, previous: previous, previousDue: sessions.due(ofSlot: slot))
        let odds = odds(of: session.settings, keeping: previous)
        _ = sessions.withSession(inSlot: slot) { scheduled in
            scheduled.session = session
            scheduled.settingsChanged()
            scheduled.odds = odds
            scheduled.attentionID = 0
            scheduled.reservationAttentionID = 0
        }
        return change
    }

    /// The odds of a session's new settings: those it had when the target,
    /// the monkeys and the alphabet are unchanged, as most changes (STOP,
    /// the interval, the seed) leave them.
    private mutating func odds(of after: SessionSettings, keeping previous: ScheduledSession) -> Odds? {
        let before = previous.session.settings
        let unchanged =
            before.target == after.target && before.monkeys == after.monkeys && before.alphabet == after.alphabet
        return unchanged ? previous.odds : odds(of: after)
    }

    private mutating func status(_ name: SessionName?) -> Reply {
        guard let name else {
            var reply = Reply(status: nil)
            // The names sorted once for as long as no session comes or goes:
            // `top` asks for every session every second.
            if sortedSlots.generation != sessions.generation {
                sortedSlots = (sessions.generation, sessions.sortedSlots)
            }
            reply.continuation = .listing(
                SessionListing(sessions: sortedSlots.sessions, generation: sessions.generation))
            return reply
        }
        guard let scheduled = sessions[name] else { return noSuchSession(name) }
        var reply = Reply(status: .ok(nil))
        reply.records = [Engine.statusRecord(scheduled, now: clock)]
        return reply
    }

    /// Writes the next sessions' status lines, in name order, until `output`
    /// holds `byteLimit` bytes; true once every session is written. A
    /// session started meanwhile is listed if its name is still ahead; one
    /// deleted meanwhile is not.
    public func fill(_ listing: inout SessionListing, into output: inout [UInt8], byteLimit: Int) -> Bool {
        if listing.generation != sessions.generation {
            listing.sessions = sessions.sortedSlots
            listing.generation = sessions.generation
        }
        let names = listing.sessions
        var index = 0
        if let after = listing.afterName { index = names.indices.partitionPoint { names[$0].name > after } }
        while index < names.count {
            if output.count >= byteLimit { return false }
            _ = sessions.read(slot: names[index].slot) { Engine.appendStatus(of: $0, now: clock, to: &output) }
            listing.afterName = names[index].name
            index += 1
        }
        return true
    }

    private func stream(_ name: SessionName, _ query: LogQuery, follow: Bool) -> Reply {
        guard let log = sessions[name]?.session.log else { return noSuchSession(name) }
        let selected = log.positions(afterID: query.after, last: query.last)
        let newestID = log.newest?.id ?? 0
        // Start just before the first selected entry; with nothing selected,
        // after the newest (or after `after=`, if that is beyond it).
        let lastID = selected.isEmpty ? max(newestID, query.after ?? 0) : log[selected.lowerBound].id - 1
        var reply = Reply(status: nil)
        reply.continuation = .replay(
            LogStream(session: name, lastID: lastID, throughID: follow ? nil : max(lastID, newestID)))
        return reply
    }

    /// Writes the stream's next entries until `output` holds `byteLimit` bytes.
    public func fill(_ stream: inout LogStream, into output: inout [UInt8], byteLimit: Int) -> LogStream.Progress {
        guard let log = sessions[stream.session]?.session.log else { return .sessionGone }
        var position = log.position(afterID: stream.lastID)
        while position < log.count {
            if output.count >= byteLimit { return .more }
            let entry = log[position]
            if let through = stream.throughID, entry.id > through { return .finished }
            ResponseEncoder.appendEntry(entry, session: stream.session, to: &output)
            stream.lastID = entry.id
            position += 1
        }
        return .finished
    }

    /// TAIL of several sessions or globs: every name must exist, a glob may
    /// match none (yet).
    private func tail(_ patterns: [SessionPattern], _ query: LogQuery, follows: Bool) -> Reply {
        var names = Set<SessionName>()
        for pattern in patterns {
            switch pattern {
            case .name(let name):
                guard sessions[name] != nil else { return noSuchSession(name) }
                names.insert(name)
            case .glob(let glob):
                for name in sessions.keys where glob.matches(name.text) { names.insert(name) }
            }
        }
        var reply = Reply(status: nil)
        reply.continuation = .tail(
            TailStream(patterns: patterns, last: query.last, follows: follows, pending: names.sorted(), current: nil))
        return reply
    }

    /// Writes the next part of a TAIL of several sessions until `output`
    /// holds `byteLimit` bytes. A session deleted meanwhile gets one
    /// `deleted session=NAME` record and is dropped.
    public func fill(_ tail: inout TailStream, into output: inout [UInt8], byteLimit: Int) -> TailStream.Progress {
        while true {
            if var stream = tail.current {
                switch fill(&stream, into: &output, byteLimit: byteLimit) {
                case .more:
                    tail.current = stream
                    return .more
                case .finished:
                    tail.written[stream.session] = stream.lastID
                case .sessionGone:
                    Self.appendDeleted(stream.session, to: &output)
                }
                tail.current = nil
            }
            guard !tail.pending.isEmpty else { break }
            let name = tail.pending.removeFirst()
            guard let log = sessions[name]?.session.log else {
                Self.appendDeleted(name, to: &output)
                continue
            }
            let selected = log.positions(afterID: nil, last: tail.last)
            let lastID = selected.isEmpty ? (log.newest?.id ?? 0) : log[selected.lowerBound].id - 1
            // A LOG writes each session's entries as they are when its turn
            // comes, none typed while it is written.
            let throughID = tail.follows ? nil : max(lastID, log.newest?.id ?? 0)
            tail.current = LogStream(session: name, lastID: lastID, throughID: throughID)
        }
        // What the sessions replayed first typed while the others were.
        for name in tail.written.keys.sorted() where tail.follows {
            guard let lastID = tail.written[name] else { continue }
            guard sessions[name] != nil else {
                Self.appendDeleted(name, to: &output)
                tail.written[name] = nil
                continue
            }
            var stream = LogStream(session: name, lastID: lastID, throughID: nil)
            let progress = fill(&stream, into: &output, byteLimit: byteLimit)
            tail.written[name] = stream.lastID
            if progress == .more { return .more }
        }
        return .finished(following: tail.written.keys.sorted())
    }

    /// `deleted session=NAME`: a followed session is gone; the stream goes on.
    public static func appendDeleted(_ name: SessionName, to output: inout [UInt8]) {
        ResponseEncoder.append(Record(type: "deleted", fields: [("session", name.text)]), to: &output)
    }

    /// WAIT: met at once (a stopped session, best progress already that
    /// long) with the session's status line, else left to the daemon.
    private func wait(_ name: SessionName, _ condition: WaitCondition, timeout: Interval?) -> Reply {
        guard let scheduled = sessions[name] else { return noSuchSession(name) }
        let session = scheduled.session
        let isMet =
            switch condition {
            case .hit: false
            case .stopped: !session.isTyping
            case .best(let length): session.bestLength >= length
            case .coverage(let percent): Self.coverageReaches(scheduled.corpus, percent: percent)
            }
        if isMet {
            var reply = Reply(status: .ok(nil))
            reply.records = [Engine.statusRecord(scheduled, now: clock)]
            return reply
        }
        var reply = Reply(status: nil)
        reply.continuation = .wait(WaitRequest(session: name, condition: condition, timeout: timeout))
        return reply
    }

    /// Whether a session's event meets a waiter's condition.
    public static func meets(_ record: EventRecord, _ condition: WaitCondition) -> Bool {
        switch (condition, record.kind) {
        case (.hit, .hit), (.stopped, .stopped): true
        case (.best(let length), .best): (record.bestLength ?? 0) >= length
        case (.coverage(let percent), .coverage): (record.percent ?? 0) >= percent
        default: false
        }
    }

    private func noSuchSession(_ name: SessionName) -> Reply {
        .error(.noSuchSession, "there is no session named \(name)")
    }

    /// A session's STATUS fields: the settings and counters, the seed when
    /// one is set, and for a target the odds (see `Figures`). Written once
    /// for the two ways a STATUS goes out: straight into a connection's
    /// bytes (`appendStatus`, a STATUS of thousands of sessions a second)
    /// and as a `Record` (one session, a WAIT met at once).
    static func writeStatus<Fields: FieldWriter>(
        of scheduled: borrowing ScheduledSession, now: UInt64, to fields: inout Fields
    ) {
        // Fields read where they lie: a copy of the session would retain its log.
        fields.write("name", scheduled.session.name.text)
        fields.write("state", scheduled.session.isTyping ? "running" : "stopped")
        fields.write("monkeys", decimal: UInt64(scheduled.session.settings.monkeys))
        fields.write("interval", scheduled.session.settings.interval.description)
        fields.write("alphabet", scheduled.session.settings.alphabet.text)
        let isCorpusSession = scheduled.session.settings.isCorpusSession
        if isCorpusSession {
            fields.write("corpus", scheduled.session.settings.corpus)
            fields.write("chunk", decimal: UInt64(scheduled.session.settings.chunk))
        } else {
            fields.write("target", scheduled.session.settings.target.target)
        }
        fields.write("typed", decimal: scheduled.session.typed)
        fields.write("entries", decimal: UInt64(scheduled.session.log.count))
        fields.write("hits", decimal: scheduled.session.hits)
        if !isCorpusSession { fields.write("best", scheduled.session.best) }
        let rate = scheduled.session.isTyping ? scheduled.rate.rate(at: now) : 0
        fields.write("rate", RateMeter.text(rate))
        if let seed = scheduled.session.settings.seed { fields.write("seed", seed.description) }
        if let run = scheduled.corpus { writeCoverage(of: run, to: &fields) }
        if let odds = scheduled.odds {
            let figures = odds.figures(
                interval: scheduled.session.settings.interval, typed: scheduled.session.typed, rate: rate)
            fields.write("p_hit", figures.pHit)
            fields.write("expected_entries", figures.expectedEntries)
            fields.write("expected_seconds", figures.expectedSeconds)
            fields.write("chance", figures.chance)
        }
    }

    /// The STATUS line of a session, written straight into `output`.
    static func appendStatus(of scheduled: borrowing ScheduledSession, now: UInt64, to output: inout [UInt8]) {
        output.appendLiteral("session")
        LineFields.appending(to: &output) { writeStatus(of: scheduled, now: now, to: &$0) }
        output.append(0x0A)
    }

    /// The STATUS record of a session.
    static func statusRecord(_ scheduled: ScheduledSession, now: UInt64) -> Record {
        var fields = RecordFields()
        writeStatus(of: scheduled, now: now, to: &fields)
        return Record(type: "session", fields: fields.fields)
    }

    /// The OK text of a START or SET, saying so when the target can never
    /// be typed with the session's settings: the change is made all the same.
    private func acknowledgement(_ text: String, of name: SessionName) -> String {
        Self.acknowledgement(text, sessions[name]?.odds?.impossibility)
    }

    private static func acknowledgement(_ text: String, _ impossibility: Impossibility?) -> String {
        guard let impossibility else { return text }
        return "\(text); warning: \(impossibility.warning)"
    }
}
