import Testing

@testable import MonkeyCore

struct EngineControlTests {
    @Test func fixedRepliesNeedNoSession() throws {
        var harness = Harness()
        #expect(try harness.send("PING").status == .ok("pong"))
        #expect(try harness.send("HELLO").status == .ok("monkeyd version=\(Engine.version) protocol=1"))
        let help = try harness.send("HELP")
        #expect(help.status == .ok(nil))
        #expect(help.records.map { $0.value("name") } == Verb.allCases.map(\.rawValue))
        #expect(help.records.allSatisfy { $0.type == "verb" && $0.value("usage") != nil })
        let quit = try harness.send("QUIT")
        #expect(quit.status == .ok("bye") && quit.closesConnection)
        #expect(!help.closesConnection)
    }

    @Test func startCreatesAndSchedules() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        #expect(harness.engine.nextDeadline() == nil)
        let reply = try harness.send("START a monkeys=3 interval=250ms target=xy", now: ms(1000))
        #expect(reply.status == .ok("started a"))
        let session = try #require(harness.engine.session(named: try sessionName("a")))
        #expect(session.isTyping && session.settings.monkeys == 3 && session.settings.target.target == "xy")
        #expect(harness.engine.nextDeadline() == ms(1250))
        #expect(store.saved.last == session.snapshot)
        let event = try #require(reply.events.first)
        #expect(reply.events.count == 1)
        #expect(event.kind == .start && event.session == session.name && event.peer == admin)
        #expect(event.fields.contains(Event.Field("created", "yes")))
        #expect(event.fields.contains(Event.Field("interval", "250ms")))
    }

    @Test func startIsIdempotent() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        let again = try harness.send("START a", now: ms(50))
        #expect(again.status == .ok("started a"))
        #expect(again.events.first?.fields.contains(Event.Field("created", "no")) == true)
        #expect(harness.engine.nextDeadline() == ms(100), "a running session keeps its schedule")
        #expect(harness.tick(now: ms(100)).entries.count == 1)
        #expect(harness.engine.sessionCount == 1)
        try harness.expectOK("START a monkeys=4", now: ms(150))
        #expect(harness.tick(now: ms(200)).entries.map(\.entry.text.count) == [4])
    }

    @Test func stopKeepsTheLogAndIsIdempotent() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        harness.tick(times: 3)
        let stop = try harness.send("STOP a", now: ms(350))
        #expect(stop.status == .ok("stopped a"))
        #expect(stop.events.map(\.kind) == [.stop])
        #expect(harness.tick(now: ms(400)).entries.isEmpty)
        #expect(harness.tick(now: ms(10_000)).entries.isEmpty)
        let again = try harness.send("STOP a")
        #expect(again.status == .ok("stopped a") && again.events.isEmpty)
        let status = try harness.status("a")
        #expect(status.value("state") == "stopped" && status.value("entries") == "3")
        #expect(try harness.send("STOP b").errorCode == .noSuchSession)
        // Starting again types again, from the time of the START.
        try harness.expectOK("START a", now: ms(20_000))
        #expect(harness.tick(now: ms(20_100)).entries.map(\.entry.number) == [4])
    }

    /// A target the session can never type: the change is made, and the
    /// answer and the event say why, the event's text naming only what changed.
    @Test func setOfAHopelessTargetWarns() throws {
        var harness = Harness()
        try harness.expectOK("START a alphabet=x monkeys=3")
        let set = try harness.send("SET a target=xz", now: ms(50))
        guard case .ok(let text?) = set.status else {
            Issue.record("not OK with a text: \(set.status)")
            return
        }
        #expect(text.hasPrefix("updated a; warning: the target can never be typed"))
        let event = try #require(set.events.first)
        #expect(event.fields.map(\.key) == ["target", "warning"])
        #expect(event.fields.last?.value == String(text.dropFirst("updated a; warning: ".count)))
        #expect(event.message == "changed session a: target=xz")
        // The stream's `updated` event has what changed, without the warning.
        #expect(event.recordFields == [[Event.Field("target", "xz")]])
        #expect(harness.engine.session(named: try sessionName("a"))?.settings.target.target == "xz")
    }

    /// The odds follow the target, the monkeys and the alphabet: a SET of
    /// anything else keeps them, and its warning; one of those works them
    /// out again.
    @Test func setKeepsOrRedoesTheOdds() throws {
        var harness = Harness()
        try harness.expectOK("START a alphabet=xy monkeys=3 target=xz interval=1h")
        #expect(
            try harness.send("SET a interval=2h").status
                == .ok("updated a; warning: the target can never be typed: the alphabet lacks \"z\""))
        #expect(try harness.status("a").value("p_hit") == "0")
        try harness.expectOK("SET a target=xy")
        #expect(try harness.status("a").value("expected_entries") == "2")
        try harness.expectOK("SET a seed=1")
        #expect(try harness.status("a").value("expected_entries") == "2")
        try harness.expectOK("SET a monkeys=2")
        #expect(try harness.status("a").value("expected_entries") == "4")
        try harness.expectOK("SET a alphabet=xyz")
        #expect(try harness.status("a").value("expected_entries") == "9")
        try harness.expectOK("SET a target=\"\"")
        #expect(try harness.status("a").value("p_hit") == nil)
        #expect(try harness.send("SET a monkeys=1").status == .ok("updated a"))
        #expect(try harness.status("a").value("p_hit") == nil)
    }

    @Test func setChangesALiveSession() throws {
        var harness = Harness()
        try harness.expectOK("START a alphabet=x")
        #expect(harness.tick(now: ms(100)).entries.map(\.entry.text) == ["x"])
        let set = try harness.send("SET a monkeys=5 alphabet=y target=yy", now: ms(150))
        #expect(set.status == .ok("updated a"))
        #expect(set.events.first?.kind == .set)
        let fields = [Event.Field("target", "yy"), Event.Field("monkeys", "5"), Event.Field("alphabet", "y")]
        #expect(set.events.first?.fields == fields)
        #expect(set.events.first?.message == "changed session a: target=yy monkeys=5 alphabet=y")
        #expect(set.events.flatMap(\.recordFields) == [fields])
        #expect(harness.tick(now: ms(200)).entries.map(\.entry.text) == ["yyyyy"])
        try harness.expectOK("SET a interval=1s", now: ms(250))
        #expect(harness.tick(now: ms(300)).entries.isEmpty, "the old schedule is gone")
        #expect(
            harness.tick(now: ms(1299)).entries.count == 1,
            "due at 1.25 s, on to its 100 ms step at 1.3 s, within the coalescing window")
        #expect(try harness.status("a").value("interval") == "1s")
        #expect(try harness.send("SET b monkeys=2").errorCode == .noSuchSession)
    }

    @Test func setOnAStoppedSessionDoesNotStartIt() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        try harness.expectOK("STOP a")
        try harness.expectOK("SET a interval=10ms monkeys=2")
        #expect(harness.tick(now: ms(10_000)).entries.isEmpty)
        #expect(try harness.status("a").value("state") == "stopped")
    }

    @Test func clearRestartsNumberingAndContinuesIds() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        harness.tick(times: 3)
        let clear = try harness.send("CLEAR a", now: ms(350))
        #expect(clear.status == .ok("cleared a"))
        #expect(clear.events.first?.fields == [Event.Field("entries", "3"), Event.Field("id", "4")])
        let status = try harness.status("a")
        #expect(status.value("entries") == "0" && status.value("typed") == "0" && status.value("state") == "running")
        let next = harness.tick(now: ms(400)).entries.map(\.entry)
        #expect(next.map(\.id) == [4] && next.map(\.number) == [1])
        #expect(try harness.send("CLEAR b").errorCode == .noSuchSession)
    }

    @Test func deleteRemovesTheSession() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START a")
        try harness.expectOK("START b")
        let delete = try harness.send("DELETE a")
        #expect(delete.status == .ok("deleted a") && delete.events.map(\.kind) == [.delete])
        #expect(store.deleted == [try sessionName("a")])
        #expect(harness.engine.session(named: try sessionName("a")) == nil)
        #expect(try harness.send("STATUS a").errorCode == .noSuchSession)
        #expect(try harness.send("LOG a").errorCode == .noSuchSession)
        #expect(harness.tick(now: ms(100)).entries.map(\.session.text) == ["b"])
        #expect(try harness.send("DELETE a").errorCode == .noSuchSession)
    }

    @Test func statusReportsEveryField() throws {
        var harness = Harness()
        try harness.expectOK("START zed")
        try harness.expectOK("START a monkeys=2 interval=1.5s alphabet=ab target=\"a b\"")
        try harness.expectOK("STOP zed")
        let a = try harness.status("a")
        #expect(a.type == "session")
        #expect(
            a.fields.map(\.key) == [
                "name", "state", "monkeys", "interval", "alphabet", "target", "typed", "entries", "hits", "best",
                "rate", "p_hit", "expected_entries", "expected_seconds", "chance",
            ])
        // The alphabet lacks the blank: the target can never be typed.
        #expect(
            a.fields.map(\.value) == [
                "a", "running", "2", "1.5s", "ab", "a b", "0", "0", "0", "", "0", "0", "never", "never", "0",
            ])
        try harness.expectOK("SET a alphabet=\"ab \" monkeys=3 seed=42")
        let seeded = try harness.status("a")
        #expect(seeded.value("seed") == "42")
        #expect(seeded.value("p_hit") == "3.704e-02" && seeded.value("expected_entries") == "27")
        #expect(seeded.value("expected_seconds") == "40.5" || seeded.value("expected_seconds") == "4.050e+01")
        let all = try harness.listAll().records
        #expect(all.map { $0.value("name") } == ["a", "zed"])
        #expect(all.last?.value("state") == "stopped")
        #expect(all.last?.value("interval") == "100ms")
        #expect(all.last?.value("alphabet") == "abcdefghijklmnopqrstuvwxyz")
        var empty = Harness()
        #expect(try empty.listAll().records.isEmpty)
    }

    /// STATUS of thousands of sessions is megabytes: it is written as the
    /// client reads, like LOG, never all at once.
    @Test func statusOfEverySessionIsWrittenAsTheClientReads() throws {
        var harness = Harness()
        let names = (0..<300).map { "s" + String(1000 + $0).dropFirst() }
        for name in names.shuffled() { try harness.expectOK("START \(name) interval=1h") }
        let (records, reads) = try harness.listAll(byteLimit: 1024)
        #expect(records.map { $0.value("name") } == names, "each once, in name order")
        #expect(reads > 20, "a kilobyte at a time")
    }

    /// The listing writes each line straight into the output; it says
    /// what STATUS of that one session says, byte for byte.
    @Test func theListingSaysWhatStatusOfEachSessionSays() throws {
        var harness = Harness()
        for line in [
            "START plain", "START quoted target=\"to be \\\"or\\\" not\" alphabet=\"abcdefghijklmnopqrstuvwxyz \\\"\"",
            "START seeded seed=18446744073709551615 monkeys=10000 target=zz interval=1.5s",
            "START hopeless target=XYZ", "START stopped target=a monkeys=3", "STOP stopped",
        ] {
            try harness.expectOK(line)
        }
        harness.tick(times: 30, every: ms(100))
        var listing = try #require(try harness.send("STATUS").listing)
        var output: [UInt8] = []
        #expect(harness.engine.fill(&listing, into: &output, byteLimit: .max))
        let lines = output.split(separator: 0x0A)
        #expect(lines.count == 5)
        for line in lines {
            let name = try #require(try ResponseDecoder.record(String(decoding: line, as: UTF8.self)).value("name"))
            var one: [UInt8] = []
            ResponseEncoder.append(try harness.status(name), to: &one)
            #expect(Array(line) + [0x0A] == one, "\(name)")
        }
        #expect(try harness.status("seeded").value("typed") != "0")
    }

    @Test func aListingFollowsSessionsStartedAndDeletedMeanwhile() throws {
        var harness = Harness()
        for name in ["b", "d", "f"] { try harness.expectOK("START \(name) interval=1h") }
        var listing = try #require(try harness.send("STATUS").listing)
        var output: [UInt8] = []
        #expect(!harness.engine.fill(&listing, into: &output, byteLimit: 1), "one line, then the limit")
        try harness.expectOK("START a interval=1h")  // behind: not listed
        try harness.expectOK("START e interval=1h")  // ahead: listed
        try harness.expectOK("DELETE d")
        #expect(harness.engine.fill(&listing, into: &output, byteLimit: .max))
        let names = try String(decoding: output, as: UTF8.self).split(separator: "\n").map { line in
            try ResponseDecoder.record(String(line)).value("name")
        }
        #expect(names == ["b", "e", "f"])
    }

    @Test func statusCountsTypingHitsAndBest() throws {
        var harness = Harness(
            limits: {
                var limits = Limits()
                limits.maximumEntries = 2
                return limits
            }())
        try harness.expectOK("START a alphabet=a target=aaa monkeys=2")
        harness.tick(times: 3)
        var status = try harness.status("a")
        #expect(status.value("typed") == "3" && status.value("entries") == "2")
        #expect(status.value("hits") == "0" && status.value("best") == "aa")
        try harness.expectOK("SET a monkeys=3", now: ms(350))
        harness.tick(times: 2, from: ms(400))
        status = try harness.status("a")
        #expect(status.value("hits") == "2" && status.value("best") == "aaa" && status.value("typed") == "5")
    }

    @Test func tooManySessions() throws {
        var limits = Limits()
        limits.maximumSessions = 2
        var harness = Harness(limits: limits)
        try harness.expectOK("START a")
        try harness.expectOK("START b")
        let third = try harness.send("START c")
        #expect(third.errorCode == .tooManySessions && third.events.isEmpty)
        #expect(harness.engine.sessionCount == 2)
        try harness.expectOK("START a monkeys=3")
        try harness.expectOK("DELETE b")
        try harness.expectOK("START c")
    }

    @Test(arguments: ["START a", "START new", "STOP a", "SET a monkeys=9", "CLEAR a", "DELETE a"])
    func changingVerbsAreDeniedToOrdinaryPeers(line: String) throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START a monkeys=2")
        harness.tick(times: 2)
        let before = harness.engine.session(named: try sessionName("a"))?.snapshot
        let reply = try harness.send(line, now: ms(250), from: visitor)
        #expect(reply.errorCode == .denied)
        #expect(reply.events.isEmpty)
        #expect(harness.engine.sessionCount == 1)
        #expect(harness.engine.session(named: try sessionName("a"))?.snapshot == before)
        #expect(harness.engine.session(named: try sessionName("a"))?.log.count == 2)
        #expect(store.saved.count == 1 && store.cleared.isEmpty && store.deleted.isEmpty)
    }

    @Test(arguments: ["PING", "HELLO", "HELP", "QUIT", "STATUS", "STATUS a", "LOG a", "TAIL a last=1"])
    func readOnlyVerbsAreAllowedToOrdinaryPeers(line: String) throws {
        var harness = Harness()
        try harness.expectOK("START a")
        harness.tick(times: 1)
        let reply = try harness.send(line, from: visitor)
        #expect(reply.errorCode == nil)
        #expect(reply.status != nil || reply.stream != nil || reply.listing != nil)
    }
}
