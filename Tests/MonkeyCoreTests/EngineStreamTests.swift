import Testing

@testable import MonkeyCore

struct EngineStreamTests {
    /// A harness with session `a` that has typed `count` entries (ids and
    /// numbers 1...count), every 100 ms from 100 ms.
    func typed(_ count: Int, limits: Limits = Limits(), start: String = "START a") throws -> Harness {
        var harness = Harness(limits: limits)
        try harness.expectOK(start)
        harness.tick(times: count)
        return harness
    }

    func ids(_ records: [Record]) -> [String] { records.compactMap { $0.value("id") } }

    @Test func logReplaysOldestFirstThenEnds() throws {
        var harness = try typed(5)
        let reply = try harness.send("LOG a")
        #expect(reply.status == nil && reply.stream?.isFollowing == false)
        let records = try harness.drain(reply)
        #expect(ids(records) == ["1", "2", "3", "4", "5"])
        #expect(records.map { $0.value("number") } == ["1", "2", "3", "4", "5"])
        let entries = try #require(harness.engine.session(named: try sessionName("a"))?.log)
        for (position, record) in records.enumerated() {
            #expect(record.type == "entry" && record.value("session") == "a")
            #expect(record.value("text") == entries[position].text)
            #expect(record.value("hit") == nil)
        }
    }

    @Test(arguments: [
        ("", ["1", "2", "3", "4", "5"]), ("last=2", ["4", "5"]), ("last=0", []),
        ("last=99", ["1", "2", "3", "4", "5"]),
        ("after=3", ["4", "5"]), ("after=0", ["1", "2", "3", "4", "5"]), ("after=5", []), ("after=77", []),
        ("after=1 last=2", ["4", "5"]), ("after=3 last=5", ["4", "5"]), ("after=2 last=1", ["5"]),
    ])
    func logQueries(arguments: String, expected: [String]) throws {
        var harness = try typed(5)
        #expect(ids(try harness.drain(try harness.send("LOG a \(arguments)"))) == expected)
    }

    @Test func logDoesNotIncludeEntriesTypedAfterTheRequest() throws {
        var harness = try typed(3)
        var stream = try #require(try harness.send("LOG a last=1", now: ms(350)).stream)
        harness.tick(times: 2, from: ms(400))
        #expect(ids(try harness.drain(&stream)) == ["3"])
    }

    @Test(arguments: [1, 40, 100, 1_000])
    func byteBudgetSplitsTheStreamWithoutLosingOrRepeating(budget: Int) throws {
        var harness = try typed(30, start: "START a monkeys=7")
        var whole: [UInt8] = []
        var stream = try #require(try harness.send("LOG a").stream)
        #expect(harness.engine.fill(&stream, into: &whole, byteLimit: .max) == .finished)

        stream = try #require(try harness.send("LOG a").stream)
        var joined: [UInt8] = []
        var rounds = 0
        while true {
            var output: [UInt8] = []
            let progress = harness.engine.fill(&stream, into: &output, byteLimit: budget)
            joined += output
            rounds += 1
            if progress == .finished { break }
            #expect(progress == .more)
            #expect(!output.isEmpty, "each round makes progress")
            if rounds > 100 { break }
        }
        #expect(joined == whole)
        #expect(try decodeRecords(joined).count == 30)
        if budget < whole.count { #expect(rounds > 1) }
    }

    @Test func fullOutputWaitsForTheClient() throws {
        var harness = try typed(2)
        var stream = try #require(try harness.send("LOG a").stream)
        var output = [UInt8](repeating: 0x20, count: 10)
        #expect(harness.engine.fill(&stream, into: &output, byteLimit: 10) == .more)
        #expect(output.count == 10, "nothing written past the budget")
    }

    @Test func tailReplaysThenFollows() throws {
        var harness = try typed(3)
        let reply = try harness.send("TAIL a", now: ms(350))
        #expect(reply.status == nil && reply.stream?.isFollowing == true)
        var stream = try #require(reply.stream)
        #expect(ids(try harness.drain(&stream)) == ["1", "2", "3"])
        #expect(ids(try harness.drain(&stream)) == [], "caught up")
        _ = harness.tick(now: ms(400))
        _ = harness.tick(now: ms(500))
        #expect(ids(try harness.drain(&stream)) == ["4", "5"])
        try harness.expectOK("CLEAR a", now: ms(550))
        _ = harness.tick(now: ms(600))
        let afterClear = try harness.drain(&stream)
        #expect(ids(afterClear) == ["6"] && afterClear.first?.value("number") == "1")
    }

    @Test(arguments: [("last=0", [String]()), ("last=1", ["3"]), ("after=2", ["3"]), ("after=9", [])])
    func tailQueries(arguments: String, expected: [String]) throws {
        var harness = try typed(3)
        var stream = try #require(try harness.send("TAIL a \(arguments)", now: ms(350)).stream)
        #expect(ids(try harness.drain(&stream)) == expected)
        _ = harness.tick(now: ms(400))
        let following = try harness.drain(&stream)
        // A TAIL from a future id waits for it; otherwise the next entry follows.
        #expect(ids(following) == (arguments == "after=9" ? [] : ["4"]))
    }

    @Test func streamsEndWhenTheSessionIsDeleted() throws {
        var harness = try typed(4)
        var log = try #require(try harness.send("LOG a").stream)
        var tail = try #require(try harness.send("TAIL a").stream)
        var output: [UInt8] = []
        #expect(harness.engine.fill(&log, into: &output, byteLimit: 1) == .more)
        try harness.expectOK("DELETE a")
        #expect(harness.engine.fill(&log, into: &output, byteLimit: .max) == .sessionGone)
        #expect(harness.engine.fill(&tail, into: &output, byteLimit: .max) == .sessionGone)
    }

    /// A LOG of several sessions writes each as it is when its turn comes:
    /// entries typed while it is being written are not part of it.
    @Test func aLogOfSeveralSessionsStopsAtWhatEachHeldWhenItsTurnCame() throws {
        var harness = try typed(4)
        try harness.expectOK("START b")
        var tail = try #require(try harness.send("LOG a b", now: ms(450)).tail)
        var output: [UInt8] = []
        #expect(harness.engine.fill(&tail, into: &output, byteLimit: 1) == .more)
        _ = harness.tick(now: ms(500))
        _ = harness.tick(now: ms(600))
        #expect(harness.engine.fill(&tail, into: &output, byteLimit: .max) != .more)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        let ofA = lines.filter { $0.contains("session=a ") }
        #expect(ofA.count == 4, "a had 4 entries when its turn came: \(lines)")
        #expect(lines.contains { $0.contains("session=b ") }, "b's turn came after its ticks")
    }

    @Test func hitsAreMarked() throws {
        var harness = try typed(3, start: "START a alphabet=ab monkeys=2 target=b")
        let records = try harness.drain(try harness.send("LOG a"))
        #expect(records.count == 3)
        for record in records {
            let isHit = record.value("text")?.contains("b") == true
            #expect(record.value("hit") == (isHit ? "yes" : nil), "\(record)")
        }
        let hits = records.filter { $0.value("hit") == "yes" }.count
        #expect(try harness.status("a").value("hits") == String(hits))
    }

    @Test func retentionLimitsWhatIsReplayed() throws {
        var limits = Limits()
        limits.maximumEntries = 4
        var harness = try typed(10, limits: limits)
        #expect(ids(try harness.drain(try harness.send("LOG a"))) == ["7", "8", "9", "10"])
        #expect(ids(try harness.drain(try harness.send("LOG a after=2"))) == ["7", "8", "9", "10"])
        #expect(ids(try harness.drain(try harness.send("LOG a after=8 last=3"))) == ["9", "10"])
        limits.maximumEntries = 2
        harness.engine.update(limits)
        #expect(ids(try harness.drain(try harness.send("LOG a"))) == ["9", "10"])
    }

    @Test func emptyLogsAndMissingSessions() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        #expect(try harness.drain(try harness.send("LOG a")).isEmpty)
        #expect(try harness.send("LOG b").errorCode == .noSuchSession)
        #expect(try harness.send("TAIL b").errorCode == .noSuchSession)
    }
}
