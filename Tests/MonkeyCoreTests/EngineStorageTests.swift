import Testing

@testable import MonkeyCore

struct EngineStorageTests {
    /// What a failed change must leave exactly as it was.
    struct Observed: Equatable {
        var snapshots: [SessionSnapshot?]
        var logIDs: [[UInt64]]
        var sessionCount: Int
    }

    func observe(_ harness: Harness) throws -> Observed {
        let names = [try sessionName("a"), try sessionName("b")]
        let sessions = names.map { harness.engine.session(named: $0) }
        return Observed(
            snapshots: sessions.map { $0?.snapshot },
            logIDs: sessions.map { session in session.map { log in (0..<log.log.count).map { log.log[$0].id } } ?? [] },
            sessionCount: harness.engine.sessionCount)
    }

    @Test(arguments: [
        "START new", "START a monkeys=4", "START b", "STOP a", "SET a target=abc interval=1s", "SET b monkeys=2",
        "CLEAR a", "DELETE a", "DELETE b",
    ])
    func failedWriteLeavesStateUnchanged(line: String) throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START a monkeys=2")
        try harness.expectOK("START b")
        try harness.expectOK("STOP b")
        harness.tick(times: 3)
        let before = try observe(harness)
        let deadline = harness.engine.nextDeadline()

        store.failure = StorageError("disk full")
        let reply = try harness.send(line, now: ms(350))
        #expect(reply.errorCode == .storageError)
        #expect(reply.events.isEmpty)
        if case .error(let error) = reply.status { #expect(error.message.contains("disk full")) }
        #expect(try observe(harness) == before)
        #expect(harness.engine.nextDeadline() == deadline)

        // The session that was typing still types on its old schedule, with its old settings.
        let typed = harness.tick(now: ms(400)).entries
        #expect(typed.map(\.session.text) == ["a"])
        #expect(typed.map(\.entry.text.count) == [2])
        #expect(typed.map(\.entry.number) == [4])

        // And the same change works once the disk recovers.
        store.failure = nil
        #expect(try harness.send(line, now: ms(450)).errorCode == nil)
    }

    /// A flat-out session keeps a due time on the tick grid but has no
    /// timer: a failed change that made it timed, with its first tick due
    /// at that same time, leaves a timer item behind, which must not be
    /// taken for the flat-out session's tick (found by the fuzzer).
    @Test(arguments: ["START c interval=1", "SET c interval=1ms"])
    func aFailedChangeToATimedSessionLeavesAFlatOutOneWithoutATimer(line: String) throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START c interval=0", now: ms(1_003))
        #expect(harness.engine.nextDeadline() == nil)
        store.failure = StorageError("disk full")
        #expect(try harness.send(line, now: ms(1_009)).errorCode == .storageError)
        #expect(harness.engine.nextDeadline() == nil, "no timer for a flat-out session")
    }

    /// A group whose commit fails is taken back newest first, whatever it
    /// held (SETs of each setting, a session created, cleared, deleted and
    /// created again): every session is as it was, with its odds, its log
    /// and its schedule, and the next ticks type what they would have.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func aFailedGroupIsTakenBackWhole(seed: UInt64) throws {
        var random = WyRand(seed: seed)
        let lines = [
            "START a", "START c target=ab", "STOP a", "SET a monkeys=3", "SET a target=xy alphabet=xyz",
            "SET a target=ab",
            "SET b interval=1s seed=4", "SET b seed=", "SET a target=\"\"", "SET c monkeys=2 interval=250ms", "CLEAR a",
            "CLEAR b", "DELETE a", "DELETE c", "START b monkeys=4",
        ]
        let names = try ["a", "b", "c"].map { try sessionName($0) }
        func observe(_ harness: inout Harness) throws -> [String] {
            var seen = names.map { name in
                guard let session = harness.engine.session(named: name) else { return "\(name): none" }
                return "\(session.snapshot) \((0..<session.log.count).map { session.log[$0].id })"
            }
            for name in names {
                let status = try harness.send("STATUS \(name)")
                seen.append(
                    status.records.first.map { ResponseEncoder.encode($0) } ?? "\(String(describing: status.status))")
            }
            seen.append("\(String(describing: harness.engine.nextDeadline()))")
            return seen
        }
        for round in 0..<40 {
            var harness = Harness()
            // Hits and progress made, for a new target to reset and a revert to put back.
            try harness.expectOK("START a monkeys=2 target=ab alphabet=ab")
            try harness.expectOK("START b target=zz alphabet=xy")
            try harness.expectOK("STOP b")
            harness.tick(times: 3)
            let before = try observe(&harness)
            #expect(harness.engine.session(named: names[0])?.hits ?? 0 > 0)
            var changes: [Change] = []
            var sent: [String] = []
            for _ in 0...random.next(below: 8) {
                let line = lines[Int(random.next(below: UInt64(lines.count)))]
                let reply = harness.engine.handle(
                    try #require(try harness.parser.parse(line)), from: admin, now: ms(350))
                if let change = reply.change {
                    changes.append(change)
                    sent.append(line)
                }
            }
            for change in changes.reversed() { _ = harness.engine.revert(change, because: StorageError("disk full")) }
            #expect(try observe(&harness) == before, "round \(round): \(sent)")
            let typed = harness.tick(now: ms(400)).entries
            #expect(typed.map(\.session.text) == ["a"] && typed.map(\.entry.number) == [4], "round \(round): \(sent)")
        }
    }

    @Test func readOnlyVerbsNeverTouchTheStore() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START a")
        harness.tick(times: 2)
        store.failure = StorageError("unwritable")
        for line in ["PING", "HELLO", "HELP", "STATUS", "STATUS a", "LOG a", "TAIL a", "STOP nothing", "QUIT"] {
            let reply = try harness.send(line)
            #expect(reply.errorCode != .storageError, "\(line)")
        }
        #expect(store.saved.count == 1)
    }

    @Test func idempotentStopNeedsNoWrite() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START a")
        try harness.expectOK("STOP a")
        store.failure = StorageError("read-only file system")
        #expect(try harness.send("STOP a").status == .ok("stopped a"))
    }

    @Test func savedSnapshotsMatchTheAcknowledgedState() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try harness.expectOK("START a target=ab monkeys=2")
        harness.tick(times: 4)
        try harness.expectOK("SET a alphabet=ab", now: ms(450))
        let session = try #require(harness.engine.session(named: try sessionName("a")))
        #expect(store.saved.last == session.snapshot)
        try harness.expectOK("CLEAR a", now: ms(460))
        let cleared = try #require(harness.engine.session(named: try sessionName("a")))
        #expect(store.cleared == [cleared.snapshot])
        #expect(cleared.snapshot.nextID == 5 && cleared.snapshot.nextNumber == 1)
        try harness.expectOK("STOP a", now: ms(470))
        #expect(store.saved.last?.isTyping == false)
    }
}
