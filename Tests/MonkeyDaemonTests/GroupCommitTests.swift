import Testing

@testable import MonkeyCore
@testable import MonkeyDaemon

/// The group commit with a control log that takes or refuses what it is
/// given: one commit for every change held, answers released either way,
/// and a refused group taken back whole, newest first.
@Suite("Group commit, in process")
struct GroupCommitTests {
    /// A control log in memory that can be told to refuse.
    final class FakeLog: ChangeLog {
        var refuses = false
        var commits: [[Effect]] = []

        func commit(_ effects: [Effect], state: (SessionName) -> SessionSnapshot?) throws(StorageError) {
            if refuses { throw StorageError("the disk is full") }
            commits.append(effects)
        }
    }

    static let admin = Peer(uid: 0, pid: 1, mayChange: true)
    var engine = Engine(limits: Limits(), seed: 1)
    var commits = GroupCommit()
    var counts = RequestCounts()
    let connection = Connection(fd: -1, token: 1, peer: admin, maximumLineLength: 256)

    /// Handles a change as the daemon does: answered, the answer held.
    mutating func hold(_ line: String) throws {
        let request = try #require(try RequestParser(limits: Limits()).parse(line))
        var reply = engine.handle(request, from: Self.admin, now: 0)
        let change = try #require(reply.change, "\(line) changes state")
        commits.hold(change, of: &reply, verb: request.verb, on: connection)
    }

    var sent: String { String(decoding: connection.output.bytes, as: UTF8.self) }

    @Test mutating func changesHeldTogetherAreOneCommit() throws {
        let log = FakeLog()
        try hold("START a")
        try hold("SET a monkeys=3")
        try hold("START b")
        #expect(!connection.output.hasSendable, "nothing is sent before the commit")
        let group = commits.commit(to: log, engine: &engine, counts: &counts)
        #expect(group.isCommitted && group.changes.count == 3)
        #expect(log.commits.count == 1 && log.commits[0].count == 3)
        #expect(connection.output.hasSendable)
        #expect(sent == "OK started a\nOK updated a\nOK started b\n")
        #expect(counts.count(.start, nil) == 2 && counts.count(.set, nil) == 1)
        #expect(group.changes.compactMap(\.event).map(\.kind) == [.start, .set, .start])
        commits.recycle(group)
        #expect(commits.isEmpty)
    }

    @Test mutating func aRefusedGroupIsTakenBackWholeAndAnsweredStorageError() throws {
        let log = FakeLog()
        try hold("START a monkeys=2")
        _ = commits.commit(to: log, engine: &engine, counts: &counts)
        log.refuses = true
        try hold("SET a monkeys=5")
        try hold("START b")
        let group = commits.commit(to: log, engine: &engine, counts: &counts)
        #expect(!group.isCommitted)
        #expect(engine.session(named: try #require(SessionName("a")))?.settings.monkeys == 2, "the SET is taken back")
        #expect(engine.session(named: try #require(SessionName("b"))) == nil, "the START is taken back")
        let lines = sent.split(separator: "\n")
        #expect(lines.count == 3 && lines[0] == "OK started a")
        #expect(lines[1].hasPrefix("ERR storage-error ") && lines[2].hasPrefix("ERR storage-error "))
        #expect(counts.count(.set, .storageError) == 1 && counts.count(.start, .storageError) == 1)
    }
}
