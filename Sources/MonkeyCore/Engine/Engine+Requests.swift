/// Dispatch: one `Request` in, one `Reply` out, the state changed only when
/// the reply is OK.
extension Engine {
    public mutating func handle(_ request: Request, from peer: Peer, now: UInt64) -> Reply {
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
        case .log(let name, let query):
            return stream(name, query, follow: false)
        case .tail(let name, let query):
            return stream(name, query, follow: true)
        }
    }

    private mutating func start(_ name: SessionName, _ change: SettingsChange, peer: Peer, now: UInt64) -> Reply {
        let existing = sessions[name]?.session
        if existing == nil && sessions.count >= limits.maximumSessions {
            return .error(
                .tooManySessions, "the daemon already has \(sessions.count) sessions, its limit; delete one first")
        }
        var session = existing ?? Session(name: name, settings: .defaults, retention: limits.maximumEntries)
        let wasTyping = session.isTyping
        session.apply(change)
        session.isTyping = true
        if let failure = save(session.snapshot) { return failure }
        sessions[name, default: ScheduledSession(session: session, appender: nil)].session = session
        sessions[name]?.appender = store.appender(for: name)
        if !wasTyping || change.interval != nil { scheduleFirstTick(name, now: now) }
        var reply = Reply(status: .ok("started \(name)"))
        reply.events.append(
            Event(
                kind: .start, session: name,
                fields: Engine.settingsFields(session.settings) + [
                    Event.Field("created", existing == nil ? "yes" : "no")
                ], peer: peer,
                message: "\(existing == nil ? "created and started" : "started") session \(name): "
                    + "\(session.settings.monkeys) monkeys every \(session.settings.interval)"))
        return reply
    }

    private mutating func stop(_ name: SessionName, peer: Peer) -> Reply {
        guard var session = sessions[name]?.session else { return noSuchSession(name) }
        guard session.isTyping else { return Reply(status: .ok("stopped \(name)")) }
        session.isTyping = false
        if let failure = save(session.snapshot) { return failure }
        sessions[name]?.session.isTyping = false
        unschedule(name)
        var reply = Reply(status: .ok("stopped \(name)"))
        reply.events.append(
            Event(
                kind: .stop, session: name, fields: [Event.Field("typed", String(session.typed))], peer: peer,
                message: "stopped session \(name) after \(session.typed) entries"))
        return reply
    }

    private mutating func set(_ name: SessionName, _ change: SettingsChange, peer: Peer, now: UInt64) -> Reply {
        guard var session = sessions[name]?.session else { return noSuchSession(name) }
        session.apply(change)
        if let failure = save(session.snapshot) { return failure }
        sessions[name]?.session.apply(change)
        if session.isTyping && change.interval != nil { scheduleFirstTick(name, now: now) }
        var fields: [Event.Field] = []
        if let target = change.target { fields.append(Event.Field("target", target)) }
        if let monkeys = change.monkeys { fields.append(Event.Field("monkeys", String(monkeys))) }
        if let interval = change.interval { fields.append(Event.Field("interval", interval.description)) }
        if let alphabet = change.alphabet { fields.append(Event.Field("alphabet", alphabet.text)) }
        var reply = Reply(status: .ok("updated \(name)"))
        reply.events.append(
            Event(
                kind: .set, session: name, fields: fields, peer: peer,
                message: "changed session \(name): " + fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ")))
        return reply
    }

    private mutating func clear(_ name: SessionName, peer: Peer) -> Reply {
        guard var session = sessions[name]?.session else { return noSuchSession(name) }
        let removed = session.log.count
        session.clear()
        do {
            try store.clear(session.snapshot)
        } catch {
            return .error(.storageError, "could not clear \(name) durably: \(error.message)")
        }
        sessions[name]?.session.clear()
        showNextEntryToAppender(name)
        var reply = Reply(status: .ok("cleared \(name)"))
        reply.events.append(
            Event(
                kind: .clear, session: name,
                fields: [Event.Field("entries", String(removed)), Event.Field("id", String(session.nextID))],
                peer: peer, message: "cleared session \(name) (\(removed) entries removed)"))
        return reply
    }

    private mutating func delete(_ name: SessionName, peer: Peer) -> Reply {
        guard let session = sessions[name]?.session else { return noSuchSession(name) }
        do {
            try store.delete(name)
        } catch {
            return .error(.storageError, "could not delete \(name) durably: \(error.message)")
        }
        unschedule(name)
        sessions[name] = nil
        var reply = Reply(status: .ok("deleted \(name)"))
        reply.events.append(
            Event(
                kind: .delete, session: name, fields: [Event.Field("typed", String(session.typed))], peer: peer,
                message: "deleted session \(name)"))
        return reply
    }

    private func status(_ name: SessionName?) -> Reply {
        guard let name else {
            var reply = Reply(status: nil)
            reply.listing = SessionListing()
            return reply
        }
        guard let session = sessions[name]?.session else { return noSuchSession(name) }
        var reply = Reply(status: .ok(nil))
        reply.records = [Engine.statusRecord(session)]
        return reply
    }

    /// Writes the next sessions' status lines, in name order, until `output`
    /// holds `byteLimit` bytes; true once every session is written. A
    /// session started meanwhile is listed if its name is still ahead; one
    /// deleted meanwhile is not.
    public func fill(_ listing: inout SessionListing, into output: inout [UInt8], byteLimit: Int) -> Bool {
        let names = sessionNames
        var index = 0
        if let after = listing.afterName {
            // The first name past `after`, by binary search.
            var upper = names.count
            while index < upper {
                let middle = (index + upper) / 2
                if names[middle] <= after { index = middle + 1 } else { upper = middle }
            }
        }
        while index < names.count {
            if output.count >= byteLimit { return false }
            if let session = sessions[names[index]]?.session {
                ResponseEncoder.append(Engine.statusRecord(session), to: &output)
            }
            listing.afterName = names[index]
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
        reply.stream = LogStream(session: name, lastID: lastID, throughID: follow ? nil : max(lastID, newestID))
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

    private mutating func save(_ snapshot: SessionSnapshot) -> Reply? {
        do {
            try store.save(snapshot)
            showNextEntryToAppender(snapshot.name)
            return nil
        } catch {
            return .error(.storageError, "could not save session \(snapshot.name) durably: \(error.message)")
        }
    }

    /// After the store saved or cleared the session.
    private mutating func showNextEntryToAppender(_ name: SessionName) {
        guard let slot = sessions.slot(of: name) else { return }
        _ = sessions.withSession(inSlot: slot) { $0.showNextEntryToAppender() }
    }

    private func noSuchSession(_ name: SessionName) -> Reply {
        .error(.noSuchSession, "there is no session named \(name)")
    }

    static func statusRecord(_ session: Session) -> Record {
        let settings = session.settings
        return Record(
            type: "session",
            fields: [
                ("name", session.name.text), ("state", session.isTyping ? "running" : "stopped"),
                ("monkeys", String(settings.monkeys)), ("interval", settings.interval.description),
                ("alphabet", settings.alphabet.text), ("target", settings.target.target),
                ("typed", String(session.typed)), ("entries", String(session.log.count)),
                ("hits", String(session.hits)), ("best", session.best),
            ])
    }
}
