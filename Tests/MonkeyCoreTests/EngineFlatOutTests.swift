import Testing

@testable import MonkeyCore

/// Flat out in the engine: jobs for the typing threads, one batch in flight
/// a session, round robin, and a batch discarded when a change came while
/// it was in flight (the change wins; its ids are given again).
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
        // The first entries after a change meet the store's bookkeeping at once.
        #expect(typed.count == 100 && typed.allSatisfy(\.isForStore))
        #expect(typed.first?.entry.id == UInt64(count - 99) && typed.last?.entry.id == UInt64(count))
        #expect(typed.filter(\.needsAttention).map(\.entry.id) == [UInt64(count)], "the newest only")
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
        #expect(stored.map(\.entry.id) == typed.map(\.entry.id), "the retained entries go to the store at a sync")
        harness.engine.takeUnstoredEntries(into: &stored)
        #expect(stored.count == 100, "once")
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
