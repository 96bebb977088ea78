import Testing

@testable import MonkeyCore
@testable import MonkeyDaemon

/// A connection's phases, without sockets: what each reply starts, where a
/// replay goes, and what the poller is asked to watch in each phase.
@Suite("Connection phases")
struct ConnectionPhaseTests {
    let name: SessionName
    static let limit = 1_000

    init() throws {
        name = try #require(SessionName("s"))
    }

    func connection(_ phase: Connection.Phase) -> Connection {
        let connection = Connection(
            fd: -1, token: 1, peer: Peer(uid: 0, pid: 1, mayChange: true), maximumLineLength: 64)
        connection.phase = phase
        return connection
    }

    func interest(_ phase: Connection.Phase, pendingOutput: Int = 0, inputClosed: Bool = false)
        -> Connection.Interest
    {
        let connection = connection(phase)
        connection.output.append([UInt8](repeating: 0x41, count: pendingOutput))
        connection.inputClosed = inputClosed
        return connection.interest(outputLimit: Self.limit)
    }

    @Test func eachReplyStartsItsPhase() {
        #expect(isRequests(Connection.phase(startedBy: Reply(status: .ok("pong")))))
        var quit = Reply(status: .ok("bye"))
        quit.closesConnection = true
        #expect(isClosing(Connection.phase(startedBy: quit)))
        var tail = Reply(status: nil)
        tail.continuation = .replay(LogStream(session: name, lastID: 4, throughID: nil))
        guard case .replaying(let stream) = Connection.phase(startedBy: tail) else {
            Issue.record("a TAIL replays first")
            return
        }
        #expect(stream.isFollowing)
        var listing = Reply(status: nil)
        listing.continuation = .listing(SessionListing())
        #expect(
            Connection(fd: -1, token: 1, peer: Peer(uid: 0, pid: 1, mayChange: true), maximumLineLength: 64)
                .isStreaming == false)
        let listed = connection(Connection.phase(startedBy: listing))
        #expect(listed.isStreaming && !listed.isTailing)
        var metrics = Reply(status: nil)
        metrics.continuation = .metrics(MetricsListing())
        #expect(connection(Connection.phase(startedBy: metrics)).isStreaming)
    }

    @Test func aTailCaughtUpFollowsFromWhereTheReplayEnded() {
        let stream = LogStream(session: name, lastID: 41, throughID: nil)
        let next = Connection.phase(after: .finished, of: stream, backlogLimit: Self.limit)
        #expect(next.status == nil)
        guard case .following(let following) = next.phase else {
            Issue.record("a TAIL caught up follows")
            return
        }
        guard case .single(let session, let afterID) = following.scope else {
            Issue.record("a TAIL of one session follows it alone")
            return
        }
        #expect(session == name && afterID == 41)
        #expect(following.backlog == FollowerBacklog(limit: Self.limit))
    }

    @Test func aLogEndsWithOKAndADeletedSessionWithAnError() {
        let log = LogStream(session: name, lastID: 3, throughID: 9)
        let finished = Connection.phase(after: .finished, of: log, backlogLimit: Self.limit)
        #expect(isRequests(finished.phase) && finished.status == .ok(nil))
        let more = Connection.phase(after: .more, of: log, backlogLimit: Self.limit)
        #expect(more.status == nil)
        if case .replaying(let stream) = more.phase { #expect(stream == log) } else { Issue.record("still replaying") }
        let gone = Connection.phase(after: .sessionGone, of: log, backlogLimit: Self.limit)
        #expect(isRequests(gone.phase))
        if case .error(let error)? = gone.status { #expect(error.code == .noSuchSession) } else { Issue.record("ERR") }
    }

    /// Reading requests: readable while the answers waiting are under the
    /// limit; writable while output waits.
    @Test func aConnectionReadingRequestsIsReadableUnderTheOutputLimit() {
        #expect(interest(.requests) == .init(readable: true, writable: false))
        #expect(interest(.requests, pendingOutput: 10) == .init(readable: true, writable: true))
        #expect(interest(.requests, pendingOutput: Self.limit) == .init(readable: false, writable: true))
        #expect(interest(.requests, inputClosed: true) == .init(readable: false, writable: false))
    }

    /// A LOG replay or a listing is not read (pipelined requests wait);
    /// a TAIL's replay is, since any line ends it. Streams always want to write.
    @Test func answersHeldForACommitAreNotWaitedForButThoseBeforeThemAre() {
        let connection = connection(.requests)
        connection.output.append(Array("OK pong\n".utf8))
        let held = connection.output.end
        connection.output.append(Array("OK cleared s\n".utf8))
        connection.output.hold(from: held)
        #expect(connection.interest(outputLimit: Self.limit).writable)
        // Only the held answer is left: the commit sends it, not writability.
        let onlyHeld = self.connection(.requests)
        onlyHeld.output.append(Array("OK cleared s\n".utf8))
        onlyHeld.output.hold(from: 0)
        #expect(onlyHeld.interest(outputLimit: Self.limit) == Connection.Interest(readable: true, writable: false))
        onlyHeld.output.release()
        #expect(onlyHeld.interest(outputLimit: Self.limit).writable)
    }

    @Test func streamsAreWritableAndOnlyATailIsReadable() {
        let log = LogStream(session: name, lastID: 0, throughID: 5)
        let tail = LogStream(session: name, lastID: 0, throughID: nil)
        #expect(interest(.replaying(log)) == .init(readable: false, writable: true))
        #expect(interest(.replaying(tail)) == .init(readable: true, writable: true))
        #expect(interest(.listing(SessionListing())) == .init(readable: false, writable: true))
        #expect(interest(.reportingMetrics(MetricsListing())) == .init(readable: false, writable: true))
    }

    /// A follower is always read (a line ends it) but written only when
    /// entries wait; a closing connection is never read.
    @Test func aFollowerIsReadAndAClosingConnectionIsNot() {
        let following = Connection.Following(scope: .single(name, afterID: 0), backlog: FollowerBacklog(limit: 10))
        #expect(interest(.following(following)) == .init(readable: true, writable: false))
        #expect(interest(.following(following), pendingOutput: 5_000) == .init(readable: true, writable: true))
        #expect(interest(.closing) == .init(readable: false, writable: false))
        #expect(interest(.closing, pendingOutput: 3) == .init(readable: false, writable: true))
        #expect(connection(.following(following)).isTailing && !connection(.following(following)).isStreaming)
    }

    private func isRequests(_ phase: Connection.Phase) -> Bool {
        if case .requests = phase { return true }
        return false
    }

    private func isClosing(_ phase: Connection.Phase) -> Bool {
        if case .closing = phase { return true }
        return false
    }
}
