import Testing

@testable import MonkeyCore
@testable import MonkeyDaemon

/// Who follows what, without sockets: a connection's subscriptions are all
/// gone once it is removed, whatever it was doing, and the engine knows
/// which sessions are followed.
@Suite("Subscriptions")
struct SubscriptionsTests {
    let a: SessionName
    let b: SessionName
    var engine = Engine(limits: Limits(), seed: 1)
    var subscriptions = Subscriptions()
    var nextToken: UInt64 = 1

    init() throws {
        a = try #require(SessionName("a"))
        b = try #require(SessionName("b"))
        let admin = Peer(uid: 0, pid: 1, mayChange: true)
        for name in ["a", "b"] {
            _ = engine.handle(
                try #require(try RequestParser(limits: Limits()).parse("START \(name)")), from: admin, now: 0)
        }
    }

    mutating func connection(_ phase: Connection.Phase = .requests) -> Connection {
        defer { nextToken += 1 }
        let connection = Connection(
            fd: -1, token: nextToken, peer: Peer(uid: 0, pid: 1, mayChange: true), maximumLineLength: 64)
        connection.phase = phase
        return connection
    }

    func isFollowed(_ name: SessionName) -> Bool { engine.sessions[name]?.isFollowed ?? false }

    func following() -> Connection.Phase {
        .following(Connection.Following(scope: .several(patterns: []), backlog: FollowerBacklog(limit: 1_000)))
    }

    @Test mutating func removingAConnectionLeavesItInNoRegistry() {
        let follower = connection(following())
        let other = connection(following())
        subscriptions.follow(follower, [a, b], engine: &engine)
        subscriptions.followGlobs(follower)
        subscriptions.streamEvents(follower)
        subscriptions.wait(follower, on: a)
        subscriptions.follow(other, [a], engine: &engine)
        subscriptions.holdBack([follower, other])
        #expect(isFollowed(a) && isFollowed(b))
        #expect(subscriptions.hasWaiters && subscriptions.hasEventStreams)

        subscriptions.remove(follower, engine: &engine)
        #expect(isFollowed(a), "another connection still follows a")
        #expect(!isFollowed(b))
        #expect(!subscriptions.hasWaiters && !subscriptions.hasEventStreams)
        #expect(subscriptions.heldBack.count == 1 && subscriptions.heldBack.first === other)
        #expect(subscriptions.removeFollowers(of: a, engine: &engine).map(\.token) == [other.token])

        subscriptions.remove(other, engine: &engine)
        #expect(!isFollowed(a))
        #expect(subscriptions.heldBack.isEmpty)
        // Removing twice, or a connection that followed nothing, is harmless.
        subscriptions.remove(other, engine: &engine)
        subscriptions.remove(connection(), engine: &engine)
    }

    /// A deleted session is followed by nobody, and each follower of
    /// several sessions keeps the others.
    @Test mutating func aDeletedSessionLosesItsFollowersAndTheyKeepTheRest() {
        let follower = connection(following())
        subscriptions.follow(follower, [a, b], engine: &engine)
        #expect(subscriptions.removeFollowers(of: a, engine: &engine).map(\.token) == [follower.token])
        #expect(!isFollowed(a) && isFollowed(b))
        #expect(subscriptions.removeFollowers(of: a, engine: &engine).isEmpty)
        subscriptions.remove(follower, engine: &engine)
        #expect(!isFollowed(b))
    }

    /// A typed entry reaches its session's followers, bounded by each
    /// one's backlog: one that does not read skips entries, and says so.
    @Test mutating func entriesReachFollowersWithinTheirBacklog() {
        let reader = connection(following())
        let stalled = connection(
            .following(Connection.Following(scope: .several(patterns: []), backlog: FollowerBacklog(limit: 60))))
        subscriptions.follow(reader, [a], engine: &engine)
        subscriptions.follow(stalled, [a], engine: &engine)
        var touched: [Connection] = []
        var lost: UInt64 = 0
        for id in UInt64(1)...5 {
            let entry = Entry(id: id, number: id, text: "qwert", isHit: false)
            lost += subscriptions.deliver(
                TypedEntry(session: a, epoch: 1, entry: entry, isFollowed: true, needsAttention: false),
                touching: &touched)
        }
        #expect(touched.map(\.token) == [reader.token, stalled.token], "touched once, when their output was empty")
        #expect(lost > 0)
        #expect(String(decoding: reader.output.bytes, as: UTF8.self).split(separator: "\n").count == 5)
        #expect(String(decoding: stalled.output.bytes, as: UTF8.self).split(separator: "\n").count < 5)
    }

    /// A glob picks up a session created while it follows, once.
    @Test mutating func aGlobFollowsNewSessions() throws {
        let glob = try #require(SessionPattern("c*"))
        let follower = connection(
            .following(Connection.Following(scope: .several(patterns: [glob]), backlog: FollowerBacklog(limit: 1_000))))
        subscriptions.followGlobs(follower)
        let admin = Peer(uid: 0, pid: 1, mayChange: true)
        _ = engine.handle(try #require(try RequestParser(limits: Limits()).parse("START cat")), from: admin, now: 0)
        let cat = try #require(SessionName("cat"))
        subscriptions.followNewSession(cat, engine: &engine)
        subscriptions.followNewSession(a, engine: &engine)
        #expect(isFollowed(cat) && !isFollowed(a))
        subscriptions.followNewSession(cat, engine: &engine)
        #expect(subscriptions.removeFollowers(of: cat, engine: &engine).count == 1, "followed once")
    }
}
