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
