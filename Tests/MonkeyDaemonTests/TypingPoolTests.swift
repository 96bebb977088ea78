import Dispatch
import Testing

@testable import MonkeyCore
@testable import MonkeyDaemon

/// The typing threads alone: every job handed out comes back typed, as the
/// owner would have typed it, and the owner is woken to take it.
@Suite("Typing pool")
struct TypingPoolTests {
    @Test func everyJobComesBackTypedAndTheOwnerIsWoken() throws {
        var engine = Engine(limits: Limits(), seed: 1)
        var names: [SessionName] = []
        for index in 0..<6 {
            let name = try #require(SessionName("s\(index)"))
            names.append(name)
            let request = try #require(
                try RequestParser(limits: Limits()).parse("START \(name.text) interval=0 monkeys=9 seed=\(index)"))
            _ = engine.handle(request, from: Peer(uid: 0, pid: 1, mayChange: true), now: 0)
        }
        let jobs = engine.flatOutJobs(limit: 16)
        #expect(jobs.count == 6)
        let woken = DispatchSemaphore(value: 0)
        let pool = TypingPool(threads: 3, finished: { woken.signal() }, failed: { _ in })
        pool.submit(jobs)
        var results: [PoolResult] = []
        while results.count < jobs.count {
            #expect(woken.wait(timeout: .now() + 30) == .success, "the owner is woken")
            while case (let result?, _) = pool.takeResult() { results.append(result) }
        }
        #expect(Set(results.map(\.ticket.number)) == Set(jobs.map(\.ticket.number)))
        for result in results {
            let (ticket, batch) = (result.ticket, result.batch)
            #expect(result.matches == nil, "a plain session's texts are not scanned")
            let job = try #require(jobs.first { $0.ticket.number == ticket.number })
            var typist = Typist()
            let expected = typist.type(job.job)
            #expect(batch.kept == expected.kept && batch.firstID == job.job.firstID)
            var typed: [TypedEntry] = []
            _ = engine.merge(batch, of: ticket, now: 1, into: &typed)
            #expect(typed.filter { !$0.isForStore }.count == min(job.job.count, 10_000))
            // The first batch after the START meets the store's bookkeeping
            // at once, as at a sync: the log's newest stands for it.
            #expect(typed.filter(\.isForStore).map(\.replacesEntriesFile) == [true])
        }
        #expect(engine.flatOutJobs(limit: 16).count == 6, "each session may have its next batch")
    }
}
