import Testing

@testable import MonkeyCore

/// Flat out in the engine: jobs for the typing threads, one batch or
/// several in flight a session, merged in order, round robin, and batches
/// discarded when a change came while they were in flight (the change
/// wins; their ids are given again).
struct EngineFlatOutTests {
    static func type(_ job: PoolJob) -> TypedBatch {
        var typist = Typist()
        return typist.type(job.job)
    }

    @Test func aFlatOutSessionHasOneBatchInFlightAndNoTicks() throws {
        var limits = Limits()
        limits.maximumEntries = 100
        var harness = Harness(limits: limits)
        let name = try sessionName("s")
        try harness.expectOK("START s interval=0 monkeys=5 seed=7")
        #expect(harness.engine.nextDeadline() == nil, "no tick")
        let jobs = harness.engine.flatOutJobs(limit: 4)
        #expect(jobs.count == 1)
        #expect(harness.engine.flatOutJobs(limit: 4).isEmpty, "one batch in flight")
        let job = try #require(jobs.first)
        let count = Engine.flatOutCount(monkeys: 5, keep: 100)
        #expect(job.job.firstID == 1 && job.job.count == count && count > 100)
        var typed: [TypedEntry] = []
        _ = harness.engine.merge(Self.type(job), of: job.ticket, now: ms(1), into: &typed)
        // The first entries after a change meet the store's bookkeeping at
        // once, as at a sync: all of the log is new, so its newest stands
        // for it (the file replaced), after the entries for followers.
        #expect(typed.count == 101 && typed.prefix(100).allSatisfy { !$0.isForStore && !$0.needsAttention })
        #expect(typed.first?.entry.id == UInt64(count - 99) && typed[99].entry.id == UInt64(count))
        #expect(typed.filter(\.isForStore).map(\.entry.id) == [UInt64(count)], "the newest only")
        #expect(typed.last.map { $0.replacesEntriesFile && $0.needsAttention } == true)
        for item in typed.prefix(3) {
            #expect(
                item.entry.text
                    == SeededTyping.text(seed: 7, id: item.entry.id, monkeys: 5, alphabet: .lowercaseLatin))
        }
        #expect(harness.engine.session(named: name)?.typed == UInt64(count))
        harness.engine.setAttention(name, from: 1 << 40)
        let next = try #require(harness.engine.flatOutJobs(limit: 4).first)
        #expect(next.job.firstID == UInt64(count) + 1)
        typed.removeAll()
        _ = harness.engine.merge(Self.type(next), of: next.ticket, now: ms(2), into: &typed)
        #expect(typed.count == 100 && typed.allSatisfy { !$0.isForStore }, "for followers only")
        var stored: [TypedEntry] = []
        harness.engine.takeUnstoredEntries(into: &stored)
        // All of the retained log is new: it goes to the store at the sync
        // as its newest entry, which stands for the log (its file replaced).
        #expect(stored.map(\.entry.id) == [typed.last?.entry.id], "the retained log goes to the store at a sync")
        #expect(stored.allSatisfy { $0.replacesEntriesFile && $0.needsAttention })
        harness.engine.takeUnstoredEntries(into: &stored)
        #expect(stored.count == 1, "once")
    }

    @Test(arguments: ["SET s monkeys=3", "CLEAR s", "STOP s", "DELETE s", "SET s alphabet=xyz", "SET s seed=9"])
    func aChangeWhileABatchIsInFlightDiscardsIt(change: String) throws {
        var harness = Harness()
        try harness.expectOK("START s interval=0 monkeys=5 target=ab")
        let job = try #require(harness.engine.flatOutJobs(limit: 1).first)
        try harness.expectOK(change)
        var typed: [TypedEntry] = []
        let events = harness.engine.merge(Self.type(job), of: job.ticket, now: ms(1), into: &typed)
        #expect(typed.isEmpty && events.isEmpty)
        let session = harness.engine.session(named: try sessionName("s"))
        #expect(session?.typed ?? 0 == 0 && session?.nextID ?? 1 == 1, "no id given")
        guard let session, session.isTyping else { return }
        let next = try #require(harness.engine.flatOutJobs(limit: 1).first, "the session types on")
        #expect(next.job.firstID == 1 && next.job.monkeys == session.settings.monkeys)
    }

    /// One session keeps several typing threads busy: its jobs reserve
    /// consecutive ids, and batches merge in the order the jobs were made,
    /// whatever order they come back in.
    @Test func severalBatchesOfOneSessionMergeInOrder() throws {
        var limits = Limits()
        limits.maximumEntries = 100
        var harness = Harness(limits: limits)
        let name = try sessionName("s")
        try harness.expectOK("START s interval=0 monkeys=5 seed=7")
        let jobs = harness.engine.flatOutJobs(limit: 8, perSession: 3)
        let count = UInt64(Engine.flatOutCount(monkeys: 5, keep: 100))
        #expect(jobs.map(\.job.firstID) == [1, 1 + count, 1 + 2 * count], "consecutive ids reserved")
        #expect(harness.engine.flatOutJobs(limit: 8, perSession: 3).isEmpty, "three in flight at most")
        var typed: [TypedEntry] = []
        for job in jobs.reversed().dropLast() {
            _ = harness.engine.merge(Self.type(job), of: job.ticket, now: ms(1), into: &typed)
            #expect(typed.isEmpty && harness.engine.session(named: name)?.typed == 0, "younger batches wait")
        }
        _ = harness.engine.merge(Self.type(jobs[0]), of: jobs[0].ticket, now: ms(1), into: &typed)
        let session = try #require(harness.engine.session(named: name))
        #expect(session.typed == 3 * count && session.nextID == 1 + 3 * count)
        #expect(session.log.count == 100 && session.log[99].id == 3 * count && session.log[99].number == 3 * count)
        let ids = typed.filter { !$0.isForStore }.map(\.entry.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "in id order, once each")
        // The store sees the session once, after the three: the newest of
        // the last batch stands for the log it has in the end.
        #expect(typed.filter(\.isForStore).map(\.entry.id) == [3 * count])
        for entry in typed.suffix(3).map(\.entry) {
            #expect(entry.text == SeededTyping.text(seed: 7, id: entry.id, monkeys: 5, alphabet: .lowercaseLatin))
        }
        let next = try #require(harness.engine.flatOutJobs(limit: 8, perSession: 3).first)
        #expect(next.job.firstID == 1 + 3 * count)
    }

    /// A change while several batches are in flight discards all of them,
    /// whichever comes back first; the next jobs start from the session's
    /// next id, with the new settings.
    @Test(arguments: [[0, 1, 2], [2, 0, 1], [1, 2, 0]])
    func aChangeDiscardsEveryBatchInFlight(order: [Int]) throws {
        var harness = Harness()
        let name = try sessionName("s")
        try harness.expectOK("START s interval=0 monkeys=5 target=ab")
        let jobs = harness.engine.flatOutJobs(limit: 8, perSession: 3)
        #expect(jobs.count == 3)
        try harness.expectOK("SET s monkeys=3")
        let fresh = try #require(harness.engine.flatOutJobs(limit: 8, perSession: 3).first)
        #expect(fresh.job.firstID == 1 && fresh.job.monkeys == 3, "the flight of the old settings is over")
        var typed: [TypedEntry] = []
        for index in order {
            let events = harness.engine.merge(Self.type(jobs[index]), of: jobs[index].ticket, now: ms(1), into: &typed)
            #expect(typed.isEmpty && events.isEmpty)
        }
        #expect(harness.engine.session(named: name)?.nextID == 1, "no id given")
        _ = harness.engine.merge(Self.type(fresh), of: fresh.ticket, now: ms(2), into: &typed)
        #expect(typed.first?.entry.id ?? 0 > 0 && typed.allSatisfy { $0.entry.text.count == 3 })
    }

    /// Batches typed while an older one was in flight start from the best
    /// progress before it: a rise is announced once, by the first batch
    /// that makes it, never again by a later one.
    @Test func eachRiseOfBestProgressIsAnnouncedOnce() throws {
        var harness = Harness()
        try harness.expectOK("START s interval=0 monkeys=2 alphabet=ab target=abab seed=3")
        let jobs = harness.engine.flatOutJobs(limit: 8, perSession: 3)
        #expect(jobs.count == 3)
        var typed: [TypedEntry] = []
        var events: [Event] = []
        for job in jobs {
            let batch = Self.type(job)
            #expect(batch.bestLength == 2, "each batch of thousands of entries types \"ab\"")
            events += harness.engine.merge(batch, of: job.ticket, now: ms(1), into: &typed)
        }
        let rises = events.compactMap { event -> Int? in
            if case .best(let progress) = event.payload { return progress.length }
            return nil
        }
        #expect(rises == [1, 2])
    }

    @Test func flatOutSessionsTakeTurns() throws {
        var harness = Harness()
        for name in ["a", "b", "c"] { try harness.expectOK("START \(name) interval=0") }
        try harness.expectOK("START timed interval=1s")
        var order: [String] = []
        for _ in 0..<6 {
            let job = try #require(harness.engine.flatOutJobs(limit: 1).first)
            order.append(job.ticket.name.text)
            var typed: [TypedEntry] = []
            _ = harness.engine.merge(Self.type(job), of: job.ticket, now: ms(1), into: &typed)
        }
        #expect(order == ["a", "b", "c", "a", "b", "c"])
        #expect(harness.engine.nextDeadline() != nil, "the timed session keeps its tick")
    }
}
