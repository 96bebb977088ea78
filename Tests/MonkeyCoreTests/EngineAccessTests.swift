import Testing

@testable import MonkeyCore

/// Access control in the engine: who was refused and why, and who did what.
struct EngineAccessTests {
    @Test func denialNamesThePeerAndTheRule() throws {
        var harness = Harness()
        harness.engine.accessRule = "only root, the daemon's user (uid 42) and members of group typists may"
        let reply = try harness.send("STOP a", from: visitor)
        guard case .error(let error) = reply.status else {
            Issue.record("not refused: \(String(describing: reply.status))")
            return
        }
        #expect(error.code == .denied)
        #expect(error.message.hasPrefix("STOP changes state and uid 1000 may not: "))
        #expect(error.message.contains("members of group typists"))
        #expect(!error.message.contains("\n"))
    }

    static let changes = [
        "START a monkeys=2", "SET a target=ab", "STOP a", "START a", "CLEAR a", "DELETE a",
    ]

    @Test func everyChangingEventRecordsThePeer() throws {
        var harness = Harness()
        let typist = Peer(uid: 1234, pid: 5678, mayChange: true)
        for line in Self.changes {
            let reply = try harness.send(line, from: typist)
            #expect(reply.events.count == 1, "\(line)")
            #expect(reply.events.allSatisfy { $0.peer == typist }, "\(line) → \(reply.events)")
        }
    }
}
