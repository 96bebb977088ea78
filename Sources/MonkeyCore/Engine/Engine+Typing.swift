/// Typing through the kernel: the job a due session's entries are typed
/// from, and the one merge of what comes back (`merge`), on the owner of
/// the session's state, in id order.
extension Engine {
    /// A session's alphabet and target made ready for the typing kernel,
    /// kept with the session and built again only when either changes
    /// (`ScheduledSession.typingTables()`), never per batch.
    struct TypingTables: Sendable {
        let alphabet: TypingAlphabet
        let target: TypingTarget

        init(_ settings: SessionSettings) {
            alphabet = TypingAlphabet(settings.alphabet)
            target = TypingTarget(settings.target, alphabet: alphabet)
        }

        /// Built for these settings' alphabet and target. Copies of one
        /// string or array compare by their storage first: cheap at every
        /// tick while nothing changed.
        func fit(_ settings: SessionSettings) -> Bool {
            alphabet.alphabet == settings.alphabet && target.matcher == settings.target
        }
    }

    /// The job for the session's next `count` entries: ids reserved from
    /// its next id, its best progress so far, its retention.
    static func job(for scheduled: inout ScheduledSession, count: Int, random: WyRand) -> TypingJob {
        let tables = scheduled.typingTables()
        let session = scheduled.session
        return TypingJob(
            monkeys: session.settings.monkeys, alphabet: tables.alphabet, target: tables.target,
            seed: session.settings.seed, firstID: session.nextID, count: count, keep: session.log.capacity,
            bestLength: session.bestLength, random: random, hitTextLimit: Self.hitTextLimit)
    }

    /// The most hits of one batch reported with their texts (one `hit`
    /// event each); the others are counted.
    static let hitTextLimit = 16

    /// Merges a batch typed for the session from its next id: its kept
    /// entries into the log and, in id order, into `typed` for the daemon
    /// to deliver; its counters; a `best` event for each rise of best
    /// progress and a `hit` event for each reported hit, in id order (a
    /// best before the hit of the same entry). The one place a batch
    /// becomes the session's.
    static func merge(
        _ batch: TypedBatch, into scheduled: inout ScheduledSession, typed: inout [TypedEntry],
        events: inout [Event]
    ) {
        let numberOfFirst = scheduled.session.absorb(batch)
        scheduled.entriesTyped &+= UInt64(batch.count)
        scheduled.charactersTyped &+= batch.charactersTyped
        scheduled.hitsTyped &+= UInt64(batch.hitCount)
        let name = scheduled.session.name
        let epoch = scheduled.session.epoch
        let isFollowed = scheduled.isFollowed
        let attentionID = scheduled.attentionID
        for index in 0..<batch.kept.count {
            let entry = batch.keptEntry(index, numberOfFirst: numberOfFirst)
            typed.append(
                TypedEntry(
                    session: name, epoch: epoch, entry: entry, isFollowed: isFollowed,
                    needsAttention: entry.id >= attentionID))
        }
        guard !batch.improvements.isEmpty || !batch.reportedHitIDs.isEmpty else { return }
        let target = scheduled.session.settings.target
        var improvements = batch.improvements.makeIterator()
        var improvement = improvements.next()
        var hitIndex = 0
        while improvement != nil || hitIndex < batch.reportedHitIDs.count {
            let hitID = hitIndex < batch.reportedHitIDs.count ? batch.reportedHitIDs[hitIndex] : UInt64.max
            if let rise = improvement, rise.id <= hitID {
                events.append(
                    Event(
                        .best(
                            Event.Progress(
                                target: target.target, best: target.prefix(characters: rise.length),
                                length: rise.length, entryID: rise.id,
                                number: numberOfFirst + (rise.id - batch.firstID))),
                        session: name))
                improvement = improvements.next()
                continue
            }
            let entry = Entry(
                id: hitID, number: numberOfFirst + (hitID - batch.firstID),
                text: batch.hitTexts.string(at: hitIndex), isHit: true)
            events.append(Event(.hit(entry, target: target.target), session: name))
            hitIndex += 1
        }
    }
}

extension Engine.ScheduledSession {
    /// The tables for the session's alphabet and target, built when they
    /// changed since the last batch.
    mutating func typingTables() -> Engine.TypingTables {
        if let tables = tables, tables.fit(session.settings) { return tables }
        let fresh = Engine.TypingTables(session.settings)
        tables = fresh
        return fresh
    }
}
