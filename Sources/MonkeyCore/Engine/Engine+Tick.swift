/// A timed session's tick: one entry typed and taken in without a batch.
extension Engine {
    /// Types the session's next entry (`Typist.typeEntry`) and takes it in
    /// as `merge` takes in a batch of that one entry: into the log and out
    /// to `typed` (with the store's bookkeeping if it is due), or, when
    /// `encodesQuiet` and it is quiet, to `journal` as the store would; the
    /// counters and the rate, then a `best` event if it raised best
    /// progress and a `hit` event if it is a hit, in that order. For a
    /// plain session only: a corpus session's entry is scanned for chunks.
    static func tick(
        _ scheduled: inout ScheduledSession, now: UInt64, random: inout WyRand, typist: inout Typist,
        typed: inout [TypedEntry], journal: inout JournalBatch, encodesQuiet: Bool, events: inout [Event]
    ) {
        scheduled.prepareTypingTables()
        let bestBefore = scheduled.session.bestLength
        var best = bestBefore
        let monkeys = scheduled.session.settings.monkeys
        // The alphabet and the target are read one by one, not as a copy of
        // the tables: a copy retains the session's own target tables, a
        // cache miss at every tick of a session that has no target (the
        // common case, known from the settings).
        guard let alphabet = scheduled.tables?.alphabet else { preconditionFailure("the tables were just prepared") }
        let target = scheduled.session.settings.target.target.isEmpty ? nil : scheduled.tables?.target
        let name = scheduled.session.name
        let epoch = scheduled.session.epoch
        let (isFollowed, attentionID, nameHash) = (
            scheduled.isFollowed, scheduled.attentionID, scheduled.journalNameHash
        )
        // Known quiet before it is typed (`TypedEntry.isQuiet`): its text goes
        // from the typing scratch into the log and the journal's records as
        // bytes. The entry is made whole (with a `String` of its text) only
        // where a follower, the store or a hit's event reads it.
        let isQuiet = encodesQuiet && !isFollowed && scheduled.session.nextID < attentionID
        let (id, number, hit) = typist.typeEntry(
            scheduled.session.nextID, monkeys: monkeys, alphabet: alphabet, target: target,
            seed: scheduled.session.settings.seed, best: &best, random: &random
        ) { text, isHit -> (UInt64, UInt64, Entry?) in
            guard !isQuiet else {
                let (id, number) = scheduled.session.absorb(bytes: text, isHit: isHit)
                journal.append(
                    id: id, number: number, isHit: isHit, text: text, session: name, nameHash: nameHash, epoch: epoch)
                return (id, number, isHit ? Entry(id: id, number: number, text: string(text), isHit: true) : nil)
            }
            let entry = scheduled.session.absorb(text: string(text), isHit: isHit)
            typed.append(
                TypedEntry(
                    session: name, epoch: epoch, entry: entry, isFollowed: isFollowed,
                    needsAttention: entry.id >= attentionID))
            return (entry.id, entry.number, isHit ? entry : nil)
        }
        scheduled.session.raiseBest(to: best)
        scheduled.entriesTyped &+= 1
        scheduled.rate.note(scheduled.entriesTyped, at: now)
        scheduled.charactersTyped &+= UInt64(monkeys)
        guard best > bestBefore || hit != nil else { return }
        let matcher = scheduled.session.settings.target
        if best > bestBefore {
            events.append(
                Event(
                    .best(
                        Event.Progress(
                            target: matcher.target, best: matcher.prefix(characters: best), length: best,
                            entryID: id, number: number)),
                    session: name))
        }
        if let hit {
            scheduled.hitsTyped &+= 1
            events.append(Event(.hit(hit, target: matcher.target), session: name))
        }
    }

    /// A typed text as a `String`. Not `String(decoding:as:)`: this
    /// initialiser makes a short ASCII text (five monkeys' entry) without a
    /// pass to validate it; the typing kernel writes only whole characters.
    private static func string(_ text: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: text.count) { $0.initialize(fromContentsOf: text) }
    }
}
