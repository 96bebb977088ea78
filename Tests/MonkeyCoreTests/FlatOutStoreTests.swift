import Testing

@testable import MonkeyCore

/// What a flat-out session hands the store, with the store's own
/// bookkeeping (`DurabilityPolicy`) deciding, as the daemon does: its kept
/// entries wait for the sync, and only what retention still holds then is
/// written; an id reservation alone cannot wait.
struct FlatOutStoreTests {
    /// The store as the daemon drives it: entries seen with the session's
    /// bookkeeping go through the policy, the others are journal records.
    struct Store {
        var policy = DurabilityPolicy(syncInterval: Interval(nanoseconds: 1_000_000_000), segment: 1, segmentBytes: 0)
        var journalRecords: [UInt64] = []
        var compactions = 0
        /// Syncs at which a flat-out session's retained log replaced its file.
        var replacements = 0
        var reservationsNow = 0

        mutating func take(_ typed: [TypedEntry], into engine: inout Engine) {
            for item in typed where item.isForStore {
                guard item.needsAttention, let session = engine.session(named: item.session) else {
                    journalRecords.append(item.entry.id)
                    continue
                }
                let plan = policy.typed(item.entry, of: session, compacting: item.replacesEntriesFile)
                if item.replacesEntriesFile {
                    #expect(item.entry == session.log.newest, "the log's newest stands for the log")
                    replacements += 1
                }
                if plan.compactsEntriesFile { compactions += 1 } else { journalRecords.append(item.entry.id) }
                if let reservation = plan.reservesNow {
                    reservationsNow += 1
                    policy.committed([.reservation(reservation)], bytes: 0)
                }
                engine.setAttention(item.session, plan.attention)
            }
        }

        /// A sync: the renewals asked for are written, as `FileStore.sync` does.
        mutating func sync() {
            policy.committed(policy.wantedReservations, bytes: 0)
        }
    }

    static func start(_ line: String, _ engine: inout Engine, _ store: inout Store) throws {
        let limits = Limits()
        let request = try #require(try RequestParser(limits: limits).parse(line))
        let reply = engine.handle(request, from: Peer(uid: 0, pid: 1, mayChange: true), now: 0)
        let effect = try #require(reply.change).effect
        store.policy.committed(store.policy.records(for: [effect], state: { engine.snapshot(of: $0) }), bytes: 0)
    }

    /// Types and merges the next batch, the store taking what it is
    /// handed; returns what the merge handed on.
    static func typeBatch(
        now: UInt64, _ typist: inout Typist, _ engine: inout Engine, _ store: inout Store
    ) throws -> [TypedEntry] {
        let job = try #require(engine.flatOutJobs(limit: 1).first)
        var typed: [TypedEntry] = []
        _ = engine.merge(typist.type(job.job), of: job.ticket, now: now, into: &typed)
        store.take(typed, into: &engine)
        return typed
    }

    /// Types `batches` batches, one in flight at a time, with a sync after
    /// every `batchesPerSync`; returns the syncs.
    static func type(
        batches: Int, batchesPerSync: Int, _ engine: inout Engine, _ store: inout Store
    ) throws -> Int {
        var typist = Typist()
        var syncs = 0
        for number in 1...batches {
            _ = try typeBatch(now: UInt64(number), &typist, &engine, &store)
            guard number % batchesPerSync == 0 else { continue }
            var typed: [TypedEntry] = []
            engine.takeUnstoredEntries(into: &typed)
            store.take(typed, into: &engine)
            store.sync()
            syncs += 1
        }
        return syncs
    }

    /// Retention far below a batch: a compaction comes due at almost every
    /// batch, and waits for the sync instead of sending each batch's kept
    /// entries to the journal ahead of a compaction that writes them again.
    @Test func keptEntriesReachTheJournalOnlyAtSyncsWhenRetentionIsBelowABatch() throws {
        var limits = Limits()
        limits.maximumEntries = 10
        var engine = Engine(limits: limits, seed: 5)
        var store = Store()
        // 4,194 entries a batch: 20 batches stay within the first reservation.
        try Self.start("START s interval=0 monkeys=1000", &engine, &store)
        let syncs = try Self.type(batches: 20, batchesPerSync: 2, &engine, &store)
        #expect(syncs == 10)
        // At most a retained log a sync, and the first batch's (it meets the
        // store at once after the change); 20 batches of 10 kept entries
        // were about 200 records when each compaction was seen at once.
        #expect(store.journalRecords.count <= 10 * (syncs + 1), "\(store.journalRecords.count) records")
        #expect(store.compactions >= syncs - 1, "the sync's newest entry compacts the file")
        #expect(store.journalRecords == store.journalRecords.sorted(), "in id order")
        #expect(store.reservationsNow == 0)
    }

    /// Retention above a batch: at a sync where most of the retained log
    /// is new, the log replaces the entries file (the storage thread
    /// encodes it), rather than the owner encoding each entry as a journal
    /// record; where little of it is new, the new entries are records.
    @Test func theRetainedLogReplacesTheFileAtASyncWhenMostOfItIsNew() throws {
        var limits = Limits()
        limits.maximumEntries = 300
        var engine = Engine(limits: limits, seed: 5)
        var store = Store()
        // 10,000 monkeys: a batch keeps 104 entries (a million characters).
        try Self.start("START s interval=0 monkeys=10000", &engine, &store)
        var syncs = try Self.type(batches: 8, batchesPerSync: 4, &engine, &store)
        // The first batch, seen at once after the change, is all new too.
        #expect(syncs == 2 && store.replacements == 3 && store.compactions == 3)
        #expect(store.journalRecords.isEmpty)
        // A sync after every batch: 104 new of 300 retained.
        syncs = try Self.type(batches: 3, batchesPerSync: 1, &engine, &store)
        #expect(syncs == 3 && store.replacements == 3)
        // Each new entry a record, but a sync's newest when the policy
        // compacts with it (the file then held twice the retention).
        #expect(store.journalRecords.count + (store.compactions - 3) == 3 * 104)
        #expect(store.journalRecords == store.journalRecords.sorted(), "in id order")
    }

    /// The store asking for an entry between syncs (an id reservation
    /// renewed) is shown the waiting entries as a sync shows them, after
    /// the merge: when most of the log is new, as the replacement of the
    /// file its newest stands for. As journal records, the owner's queue
    /// encoded megabytes of them there, and ticks waited behind it.
    @Test func anEntryAskedForBetweenSyncsShowsTheLogAsASyncWould() throws {
        var limits = Limits()
        limits.maximumEntries = 300
        var engine = Engine(limits: limits, seed: 5)
        var store = Store()
        try Self.start("START s interval=0 monkeys=10000", &engine, &store)
        let name = try sessionName("s")
        var typist = Typist()
        var typed: [TypedEntry] = []
        for _ in 0..<3 { typed = try Self.typeBatch(now: 1, &typist, &engine, &store) }
        #expect(store.replacements == 1 && store.journalRecords.isEmpty, "the first batch only, after the change")
        #expect(typed.allSatisfy { !$0.isForStore }, "two batches wait for the sync")
        // The store asks for an entry in the middle of the next batch.
        let next = try #require(engine.session(named: name)).nextID
        engine.setAttention(name, from: next + 50)
        typed = try Self.typeBatch(now: 1, &typist, &engine, &store)
        let session = try #require(engine.session(named: name))
        #expect(typed.filter(\.isForStore).map(\.entry.id) == [session.log.newest?.id])
        #expect(store.replacements == 2 && store.journalRecords.isEmpty)
        typed.removeAll()
        engine.takeUnstoredEntries(into: &typed)
        #expect(typed.isEmpty, "nothing waits for the sync")
    }

    /// A reservation renewal does not wait for a sync: the store sees the
    /// entry that asks for it when it is typed, and a sync writes it before
    /// typing reaches what is on disk. No id is handed out past it.
    @Test func aFlatOutSessionNeverTypesPastItsReservationOnDisk() throws {
        var limits = Limits()
        limits.maximumEntries = 10
        var engine = Engine(limits: limits, seed: 5)
        var store = Store()
        try Self.start("START s interval=0 monkeys=20", &engine, &store)
        let name = try sessionName("s")
        let reservation = store.policy.reservationSize(Interval(nanoseconds: 0))
        var typist = Typist()
        var reservedOnDisk = try #require(store.policy.books[name]).reservedID
        var batches = 0
        // 65,536 entries a batch, a sync every 4: a renewal is asked for at
        // half the reservation and written at the next sync, before typing
        // gets there. Past the first reservation and well into the second.
        while try #require(engine.session(named: name)).nextID < reservation + reservation / 2 {
            let job = try #require(engine.flatOutJobs(limit: 1).first)
            #expect(job.job.firstID + UInt64(job.job.count) <= reservedOnDisk, "batch \(batches)")
            var typed: [TypedEntry] = []
            _ = engine.merge(typist.type(job.job), of: job.ticket, now: 1, into: &typed)
            store.take(typed, into: &engine)
            batches += 1
            if batches % 4 == 0 {
                typed.removeAll()
                engine.takeUnstoredEntries(into: &typed)
                store.take(typed, into: &engine)
                store.sync()
            }
            reservedOnDisk = try #require(store.policy.books[name]).reservedID
        }
        #expect(store.reservationsNow == 0, "no reservation had to be written at once")
        #expect(reservedOnDisk > reservation + 1, "renewed")
    }
}
