/// Typing through the kernel: the job a due session's entries are typed
/// from, and the one merge of what comes back (`merge`), on the owner of
/// the session's state, in id order.
extension Engine {
    /// A session's alphabet and target made ready for the typing kernel,
    /// kept with the session (`ScheduledSession.typingTables()`) and
    /// dropped whenever its settings change, never built per batch.
    struct TypingTables: Sendable {
        let alphabet: TypingAlphabet
        let target: TypingTarget

        init(_ settings: SessionSettings) {
            alphabet = TypingAlphabet.shared(settings.alphabet)
            target = TypingTarget(settings.target, alphabet: alphabet)
        }
    }

    /// The job for the session's next `count` entries: ids reserved from
    /// its next id, its best progress so far, its retention.
    static func job(for scheduled: inout ScheduledSession, count: Int, random: WyRand) -> TypingJob {
        let tables = scheduled.typingTables()
        // Read in place: a copy of the session would retain each of its parts, at every tick.
        return TypingJob(
            monkeys: scheduled.session.settings.monkeys, alphabet: tables.alphabet, target: tables.target,
            seed: scheduled.session.settings.seed, firstID: scheduled.session.nextID, count: count,
            keep: scheduled.session.log.capacity, bestLength: scheduled.session.bestLength, random: random,
            hitTextLimit: Self.hitTextLimit)
    }

    /// The most hits of one batch reported with their texts (one `hit`
    /// event each); the others are counted.
    static let hitTextLimit = 16

    /// Types a job and, for a corpus session (`index`), scans every text
    /// for the corpus's chunks: what a typing thread does with a
    /// `PoolJob`, and the owner with a timed session's tick.
    public static func type(
        _ job: TypingJob, index: ChunkIndex?, with typist: inout Typist
    ) -> (batch: TypedBatch, matches: CorpusMatches?) {
        guard let index else { return (typist.type(job), nil) }
        var scanner = CorpusScanner(index: index, texts: job.count)
        let batch = typist.type(job, scanner: &scanner)
        return (batch, scanner.matches)
    }

    /// Merges a batch typed for the session from its next id: its kept
    /// entries into the log and, in id order, into `typed` for the daemon
    /// to deliver; its counters; a `best` event for each rise of best
    /// progress and a `hit` event for each reported hit, in id order (a
    /// best before the hit of the same entry); for a corpus session, its
    /// hits are what the batch covers (`cover`), their events first. The
    /// one place a batch becomes the session's.
    static func merge(
        _ batch: TypedBatch, matches: CorpusMatches?, into scheduled: inout ScheduledSession, now: UInt64,
        typed: inout [TypedEntry], events: inout [Event], isForStore: Bool = true
    ) {
        // A corpus session's hits are what its batch covers, decided first.
        let coverageHits = matches.flatMap { cover(batch, $0, into: &scheduled, events: &events) }
        let name = scheduled.session.name
        let epoch = scheduled.session.epoch
        let isFollowed = scheduled.isFollowed
        let attentionID = scheduled.attentionID
        // Only the newest entry may need the store's bookkeeping: a
        // compaction writes the log, whose newest it then is, and an id
        // reservation for it covers the others.
        let lastKeptID = batch.firstKeptID &+ UInt64(max(batch.kept.count - 1, 0))
        // A flat-out batch typed while an older one was in flight started
        // from the best before that one: only rises past the best now count.
        let bestBefore = scheduled.session.bestLength
        let numberOfFirst = scheduled.session.absorb(batch, coverageHits: coverageHits) { entry in
            var typedEntry = TypedEntry(
                session: name, epoch: epoch, entry: entry, isFollowed: isFollowed,
                needsAttention: isForStore && entry.id == lastKeptID && entry.id >= attentionID)
            typedEntry.isForStore = isForStore
            typed.append(typedEntry)
        }
        scheduled.entriesTyped &+= UInt64(batch.count)
        scheduled.rate.note(scheduled.entriesTyped, at: now)
        scheduled.charactersTyped &+= batch.charactersTyped
        scheduled.hitsTyped &+= UInt64(coverageHits?.count ?? batch.hitCount)
        guard coverageHits == nil, !batch.improvements.isEmpty || !batch.reportedHitIDs.isEmpty else { return }
        let target = scheduled.session.settings.target
        var improvements = batch.improvements.makeIterator()
        var improvement = improvements.next()
        var hitIndex = 0
        while improvement != nil || hitIndex < batch.reportedHitIDs.count {
            let hitID = hitIndex < batch.reportedHitIDs.count ? batch.reportedHitIDs[hitIndex] : UInt64.max
            if let rise = improvement, rise.id <= hitID {
                improvement = improvements.next()
                guard rise.length > bestBefore else { continue }
                events.append(
                    Event(
                        .best(
                            Event.Progress(
                                target: target.target, best: target.prefix(characters: rise.length),
                                length: rise.length, entryID: rise.id,
                                number: numberOfFirst + (rise.id - batch.firstID))),
                        session: name))
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
    /// The tables for the session's alphabet and target, built when its
    /// settings changed since the last batch.
    mutating func typingTables() -> Engine.TypingTables {
        // Checked only where settings change (`settingsChanged`), not at
        // every tick: comparing the target read its tables and arrays,
        // which lie elsewhere (a cache miss a session at every tick).
        if let tables {
            assert(
                tables.alphabet.alphabet == session.settings.alphabet
                    && tables.target.matcher == session.settings.target,
                "tables are dropped whenever the settings change")
            return tables
        }
        let fresh = Engine.TypingTables(session.settings)
        tables = fresh
        return fresh
    }

    /// Builds the tables if the settings changed since the last batch:
    /// a tick then reads them where they lie (`tables`), with no copy to
    /// retain and release. Inlined, with the building out of line: as a
    /// call of its own, testing that they are there cost a tick 18
    /// instructions.
    @inline(__always)
    mutating func prepareTypingTables() {
        if tables == nil { buildTypingTables() }
        assert(
            tables?.alphabet.alphabet == session.settings.alphabet
                && tables?.target.matcher == session.settings.target,
            "tables are dropped whenever the settings change")
    }

    @inline(never)
    private mutating func buildTypingTables() {
        _ = typingTables()
    }

    /// The session's settings were changed (or put back) in place: its
    /// tables are built again at its next batch.
    mutating func settingsChanged() {
        tables = nil
    }
}

// MARK: Flat out

/// A batch of a flat-out session's entries for a typing thread, with what
/// the owner checks when it comes back (`Engine.merge(_:of:into:)`).
public struct PoolJob: Sendable {
    public let job: TypingJob
    /// A corpus session's index, which its texts are scanned with.
    public let index: ChunkIndex?
    public let ticket: Ticket

    /// Which session the batch is for, and the state it was made from: the
    /// batch is merged only if the session is still in that state.
    public struct Ticket: Sendable {
        let slot: Int
        let name: SessionName
        let epoch: UInt64
        let settings: SessionSettings
        /// A corpus session's experiment: the batch's chunks are its index's.
        let digest: CorpusDigest?
        /// Engine-wide, never twice, increasing: the order jobs were made in.
        let number: UInt64
    }
}

extension Engine {
    /// Characters a flat-out batch types: about a millisecond of one
    /// typing thread's work at the kernel's speed.
    public static let flatOutBatchCharacters = 4 << 20
    /// The most characters of the texts a flat-out batch keeps, which the
    /// owner merges in one pass: requests wait for no more.
    public static let flatOutKeptCharacters = 1 << 20
    /// The most entries of one flat-out batch, whatever the monkeys.
    public static let flatOutBatchEntries = 1 << 16

    /// Entries in one flat-out batch of a session of `monkeys` that keeps
    /// `keep` entries: `flatOutBatchCharacters`, fewer when the kept texts
    /// would pass `flatOutKeptCharacters`.
    static func flatOutCount(monkeys: Int, keep: Int) -> Int {
        let monkeys = max(monkeys, 1)
        let count = max(1, min(Self.flatOutBatchEntries, Self.flatOutBatchCharacters / monkeys))
        guard min(keep, count) * monkeys > Self.flatOutKeptCharacters else { return count }
        return max(1, min(count, Self.flatOutKeptCharacters / monkeys))
    }

    /// Up to `limit` jobs for flat-out sessions (interval 0) that are
    /// typing, at most `perSession` of each in flight, taken round robin
    /// (one job a session a round) so that each gets its turn. The ids of a
    /// job follow those of the session's last batch in flight, or are its
    /// next ones; none is given until the batch is merged.
    public mutating func flatOutJobs(limit: Int, perSession: Int = 1) -> [PoolJob] {
        var jobs: [PoolJob] = []
        var random = self.random
        defer { self.random = random }
        var madeOne = true
        while madeOne && jobs.count < limit && !flatOut.order.isEmpty {
            madeOne = false
            var visited = 0
            let total = flatOut.order.count
            var index = flatOut.cursor % total
            var stale: [Int] = []
            while jobs.count < limit && visited < total {
                let slot = flatOut.order[index]
                index = (index + 1) % total
                visited += 1
                guard sessions.due(ofSlot: slot) != nil else {
                    stale.append(slot)
                    continue
                }
                let ticketNumber = nextTicket
                let made = sessions.withSession(inSlot: slot) { scheduled -> (PoolJob?, isFlatOut: Bool) in
                    let session = scheduled.session
                    guard session.isTyping, session.settings.interval.nanoseconds == 0 else { return (nil, false) }
                    if !scheduled.flight.isFor(epoch: session.epoch, settings: session.settings) {
                        scheduled.flight.end()
                    }
                    guard scheduled.flight.count < perSession else { return (nil, true) }
                    // Each job types from a random state of its own: batches run at once.
                    var job = Engine.job(
                        for: &scheduled,
                        count: Engine.flatOutCount(monkeys: session.settings.monkeys, keep: session.log.capacity),
                        random: WyRand(seed: random.next()))
                    job.firstID = scheduled.flight.firstID(after: session.nextID)
                    let ticket = PoolJob.Ticket(
                        slot: slot, name: session.name, epoch: session.epoch, settings: session.settings,
                        digest: scheduled.corpus?.digest, number: ticketNumber)
                    scheduled.flight.launch(ticket, firstID: job.firstID, count: job.count)
                    return (PoolJob(job: job, index: scheduled.corpus?.index, ticket: ticket), true)
                }
                guard let made, made.isFlatOut else {
                    stale.append(slot)
                    continue
                }
                guard let job = made.0 else { continue }
                nextTicket &+= 1
                jobs.append(job)
                madeOne = true
            }
            flatOut.cursor = index
            for slot in stale { flatOut.remove(slot) }
        }
        return jobs
    }

    /// Merges a flat-out batch (see `merge(_:into:typed:events:)`), and
    /// after it those of the same session that came back early and follow
    /// it, in the order their jobs were made; a batch that comes back
    /// before an older one waits for it. A batch is merged only if its
    /// session is as it was when the job was made: same slot and name,
    /// epoch, settings, still typing, no entry typed since. Otherwise it is
    /// discarded with every batch of the session still in flight: a change
    /// (SET, CLEAR, STOP, DELETE) that came meanwhile wins, and their ids
    /// were never given. Returns the events.
    public mutating func merge(
        _ batch: TypedBatch, matches: CorpusMatches? = nil, of ticket: PoolJob.Ticket, now: UInt64,
        into typed: inout [TypedEntry]
    ) -> [Event] {
        var events: [Event] = []
        clock = max(clock, now)
        guard sessions.slot(of: ticket.name) == ticket.slot else { return events }
        let listed = sessions.withSession(inSlot: ticket.slot) { scheduled -> Bool in
            guard var returned = scheduled.flight.land(.init(batch: batch, matches: matches, ticket: ticket)) else {
                return false
            }
            var isStoreAttending = false
            while true {
                guard Self.isCurrent(returned.batch, of: returned.ticket, in: scheduled) else {
                    scheduled.flight.end()
                    break
                }
                isStoreAttending =
                    Self.mergeFlatOut(returned, into: &scheduled, now: now, typed: &typed, events: &events)
                    || isStoreAttending
                guard let next = scheduled.flight.nextWaiting() else { break }
                returned = next
            }
            // After every batch that came back, so that the log's newest is
            // the newest the store sees (a replacement of the file holds it).
            if isStoreAttending {
                Engine.takeUnstored(of: &scheduled, into: &typed, attendingToTheNewest: true)
            }
            return scheduled.unstoredFrom != nil
        }
        if listed == true, !unstored.contains(ticket.name) { unstored.append(ticket.name) }
        return events
    }

    /// Whether a batch may be merged: its session is still as the job's
    /// ticket saw it (the tickets of one session's flight differ only in
    /// their number), and the batch starts at its next id.
    private static func isCurrent(_ batch: TypedBatch, of ticket: PoolJob.Ticket, in scheduled: ScheduledSession)
        -> Bool
    {
        let session = scheduled.session
        return session.isTyping && session.epoch == ticket.epoch && session.settings == ticket.settings
            && session.nextID == batch.firstID && batch.kept.count > 0 && scheduled.corpus?.digest == ticket.digest
    }

    /// Merges one flat-out batch, its entries waiting for the store
    /// (`takeUnstoredEntries`); true when the store must see the session's
    /// newest entry at once, for an id reservation. It then sees the
    /// entries still waiting as at a sync, after the merge: a replacement
    /// of the entries file when most of the log is new, encoded on the
    /// storage thread. Taken before the merge as journal records, they held
    /// the queue, and the 10 ms sessions beside, for up to 10 ms.
    /// One due for a compaction waits for the sync.
    private static func mergeFlatOut(
        _ returned: FlatOutFlight.Returned, into scheduled: inout ScheduledSession, now: UInt64,
        typed: inout [TypedEntry], events: inout [Event]
    ) -> Bool {
        let batch = returned.batch
        Engine.merge(
            batch, matches: returned.matches, into: &scheduled, now: now, typed: &typed, events: &events,
            isForStore: false)
        if scheduled.unstoredFrom == nil { scheduled.unstoredFrom = batch.firstKeptID }
        return batch.firstKeptID + UInt64(batch.kept.count - 1) >= scheduled.reservationAttentionID
    }

    /// Hands the store, in `typed`, every flat-out entry merged since the
    /// last call that the sessions still retain, in id order, session by
    /// session; the daemon calls it before each sync. Entries dropped by
    /// retention in between are never written.
    public mutating func takeUnstoredEntries(into typed: inout [TypedEntry]) {
        // By name: a session put back by a revert may lie in another slot,
        // and a new session of the same name has nothing waiting.
        for name in unstored {
            guard let slot = sessions.slot(of: name) else { continue }
            _ = sessions.withSession(inSlot: slot) {
                Engine.takeUnstored(of: &$0, into: &typed, attendingToTheNewest: true)
            }
        }
        unstored.removeAll(keepingCapacity: true)
    }

    /// Whether flat-out entries wait for `takeUnstoredEntries`.
    public var hasUnstoredEntries: Bool { !unstored.isEmpty }

    /// The session's retained entries from `unstoredFrom` on, for the store;
    /// the newest of them with the session's bookkeeping if it needs it and
    /// `attendingToTheNewest` (it is then the log's newest, see `merge`).
    static func takeUnstored(
        of scheduled: inout ScheduledSession, into typed: inout [TypedEntry], attendingToTheNewest: Bool
    ) {
        guard let from = scheduled.unstoredFrom else { return }
        scheduled.unstoredFrom = nil
        let log = scheduled.session.log
        // The first position at or after `from`: ids increase along the log.
        var low = 0
        var high = log.count
        while low < high {
            let middle = (low + high) / 2
            if log[middle].id < from { low = middle + 1 } else { high = middle }
        }
        let name = scheduled.session.name
        let epoch = scheduled.session.epoch
        let attentionID = scheduled.attentionID
        // At a sync, when most of the retained log is new, the log replaces
        // the session's entries file, encoded by the storage thread: as
        // journal records the owner encoded them, megabytes at each sync
        // with long texts, holding every request and tick behind them.
        if attendingToTheNewest, let newest = log.newest, 2 * (log.count - low) >= log.count {
            var replacing = TypedEntry(
                session: name, epoch: epoch, entry: newest, isFollowed: false, needsAttention: true)
            replacing.replacesEntriesFile = true
            typed.append(replacing)
            return
        }
        for position in low..<log.count {
            let entry = log[position]
            typed.append(
                TypedEntry(
                    session: name, epoch: epoch, entry: entry, isFollowed: false,
                    needsAttention: attendingToTheNewest && position == log.count - 1 && entry.id >= attentionID))
        }
    }

    /// Flat-out sessions that may want a batch.
    public var hasFlatOutSessions: Bool { !flatOut.order.isEmpty }
}

/// The slots of flat-out sessions, in the order they take turns.
struct FlatOutRing {
    private(set) var order: [Int] = []
    private var members: Set<Int> = []
    var cursor = 0

    mutating func insert(_ slot: Int) {
        if members.insert(slot).inserted { order.append(slot) }
    }

    mutating func remove(_ slot: Int) {
        guard members.remove(slot) != nil, let index = order.firstIndex(of: slot) else { return }
        order.remove(at: index)
        if cursor > index { cursor -= 1 }
    }
}
