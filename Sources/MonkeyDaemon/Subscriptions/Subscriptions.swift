import MonkeyCore

/// Everything a connection follows: the typing of sessions (a TAIL caught
/// up), new sessions its globs match (a TAIL of globs, from its replay
/// on), the EVENTS stream (once caught up), a session's events (a WAIT);
/// and the followers whose new entries are held back a few milliseconds to
/// share a write. A connection's subscriptions are written down with it
/// (`Membership`), so that `remove` takes it out of every registry at once,
/// whatever it was doing: none can be left behind when a stream ends or a
/// connection closes.
///
/// The engine is told which sessions are followed (`Engine.setFollowed`),
/// so that ticks of the many sessions nobody follows look nothing up.
struct Subscriptions {
    /// The followers of each session's typing, in the order they began.
    private var followers: [SessionName: [Connection]] = [:]
    /// TAILs with globs, by token: they follow sessions created later.
    private var globFollowers: [UInt64: Connection] = [:]
    /// EVENTS streams caught up, by token: new events are written to them.
    private var eventStreams: [UInt64: Connection] = [:]
    /// WAITs, by the session they wait on.
    private var waiters: [SessionName: [Connection]] = [:]
    /// What each connection (by token) is registered in.
    private var memberships: [UInt64: Membership] = [:]
    /// Followers with new entries held back (see `holdBack`).
    private(set) var heldBack: [Connection] = []
    /// Reused for every line delivered, so that delivery allocates nothing.
    private var line: [UInt8] = []

    private struct Membership {
        var sessions: Set<SessionName> = []
        var followsGlobs = false
        var streamsEvents = false
        var waitsOn: SessionName?
    }

    // MARK: Subscribing

    /// Follows the typing of `sessions` (a TAIL caught up, or a session its
    /// globs picked up).
    mutating func follow(_ connection: Connection, _ sessions: some Sequence<SessionName>, engine: inout Engine) {
        for name in sessions {
            guard memberships[connection.token, default: Membership()].sessions.insert(name).inserted else { continue }
            if followers[name] == nil { engine.setFollowed(name, true) }
            followers[name, default: []].append(connection)
        }
    }

    /// Picks up the sessions its globs match when they are created (a TAIL
    /// of globs, from the start of its replay).
    mutating func followGlobs(_ connection: Connection) {
        memberships[connection.token, default: Membership()].followsGlobs = true
        globFollowers[connection.token] = connection
    }

    /// Gets the stream's new events (an EVENTS stream caught up).
    mutating func streamEvents(_ connection: Connection) {
        memberships[connection.token, default: Membership()].streamsEvents = true
        eventStreams[connection.token] = connection
    }

    /// Gets the events of `session` (a WAIT).
    mutating func wait(_ connection: Connection, on session: SessionName) {
        memberships[connection.token, default: Membership()].waitsOn = session
        waiters[session, default: []].append(connection)
    }

    /// Takes the connection out of everything it follows: its stream ended,
    /// or it closed.
    mutating func remove(_ connection: Connection, engine: inout Engine) {
        if !heldBack.isEmpty { heldBack.removeAll { $0 === connection } }
        guard let membership = memberships.removeValue(forKey: connection.token) else { return }
        for name in membership.sessions { removeFollower(connection, of: name, engine: &engine) }
        if membership.followsGlobs { globFollowers[connection.token] = nil }
        if membership.streamsEvents { eventStreams[connection.token] = nil }
        if let session = membership.waitsOn {
            waiters[session]?.removeAll { $0 === connection }
            if waiters[session]?.isEmpty == true { waiters[session] = nil }
        }
    }

    /// A session was deleted: no connection follows it any more. Returns
    /// those that did, each now following only its other sessions.
    mutating func removeFollowers(of name: SessionName, engine: inout Engine) -> [Connection] {
        guard let list = followers.removeValue(forKey: name) else { return [] }
        for connection in list { memberships[connection.token]?.sessions.remove(name) }
        engine.setFollowed(name, false)
        return list
    }

    private mutating func removeFollower(_ connection: Connection, of name: SessionName, engine: inout Engine) {
        followers[name]?.removeAll { $0 === connection }
        guard followers[name]?.isEmpty == true else { return }
        followers[name] = nil
        engine.setFollowed(name, false)
    }

    // MARK: Delivering

    /// Writes a typed entry to its session's followers, bounded by each
    /// one's backlog; those whose output was empty are added to `touched`.
    /// Returns how many followers skipped it (`lost`).
    mutating func deliver(_ typed: TypedEntry, touching touched: inout [Connection]) -> UInt64 {
        guard let list = followers[typed.session] else { return 0 }
        line.removeAll(keepingCapacity: true)
        ResponseEncoder.appendEntry(typed.entry, session: typed.session, to: &line)
        var lost: UInt64 = 0
        for connection in list {
            guard case .following(var following) = connection.phase else { continue }
            if case .single(_, let afterID) = following.scope, typed.entry.id <= afterID { continue }
            if connection.output.isEmpty { touched.append(connection) }
            if !connection.deliver(line, through: &following.backlog) { lost &+= 1 }
            connection.phase = .following(following)
        }
        return lost
    }

    /// Writes an event record to every EVENTS stream that wants it, bounded
    /// like a follower; `touch` is called for each stream written to.
    mutating func deliver(_ record: EventRecord, touch: (Connection) -> Void) {
        guard !eventStreams.isEmpty else { return }
        line.removeAll(keepingCapacity: true)
        record.append(to: &line)
        for connection in eventStreams.values {
            guard case .streamingEvents(var streaming) = connection.phase, streaming.cursor.wants(record) else {
                continue
            }
            streaming.cursor.lastID = record.id
            _ = connection.deliver(line, through: &streaming.backlog)
            connection.phase = .streamingEvents(streaming)
            touch(connection)
        }
    }

    /// Some EVENTS stream is live.
    var hasEventStreams: Bool { !eventStreams.isEmpty }

    /// Some connection waits (most daemons have none: no name is hashed).
    var hasWaiters: Bool { !waiters.isEmpty }

    /// The connections waiting on `session`'s events, in the order they began.
    func waiters(on session: SessionName) -> [Connection] {
        waiters[session] ?? []
    }

    /// Every waiting connection.
    var allWaiters: [Connection] {
        waiters.values.flatMap { $0 }
    }

    /// A session was created: TAILs whose globs match it follow it too,
    /// from its first entry, also those still replaying.
    mutating func followNewSession(_ name: SessionName, engine: inout Engine) {
        guard !globFollowers.isEmpty else { return }
        for connection in Array(globFollowers.values) {
            switch connection.phase {
            case .following(let following):
                guard case .several(let patterns) = following.scope,
                    patterns.contains(where: { $0.isGlob && $0.matches(name) })
                else { continue }
                follow(connection, CollectionOfOne(name), engine: &engine)
            case .tailing(var tail):
                guard tail.patterns.contains(where: { $0.isGlob && $0.matches(name) }) else { continue }
                if tail.written[name] != nil {
                    tail.written[name] = 0  // deleted and created again: the new one from its start
                } else if tail.current?.session != name && !tail.pending.contains(name) {
                    tail.pending.append(name)
                }
                connection.phase = .tailing(tail)
            default:
                continue
            }
        }
    }

    // MARK: Followers' writes held back

    /// Followers just written to by a tick: their writes wait, as
    /// `TickPlan.writesFollowerNow` says, to share one with the next tick's.
    mutating func holdBack(_ touched: [Connection]) {
        heldBack += touched
    }

    /// The held-back followers whose write is due now; the others stay.
    mutating func takeDueWrites(now: UInt64, nextTick: UInt64?) -> [Connection] {
        guard !heldBack.isEmpty else { return [] }
        var due: [Connection] = []
        var stillHeld: [Connection] = []
        for connection in heldBack where !connection.isClosed {
            guard case .following(var following) = connection.phase else {
                due.append(connection)
                continue
            }
            if TickPlan.writesFollowerNow(lastWrite: following.lastWrite, now: now, nextTick: nextTick) {
                following.lastWrite = now
                connection.phase = .following(following)
                due.append(connection)
            } else {
                stillHeld.append(connection)
            }
        }
        heldBack = stillHeld
        return due
    }

    /// The earliest write due among the held-back followers: the tick
    /// timer must not wait for a tick that may never come.
    var nextHeldBackWrite: UInt64? {
        var earliest: UInt64?
        for connection in heldBack {
            guard case .following(let following) = connection.phase else { continue }
            earliest = min(earliest ?? .max, following.lastWrite &+ TickPlan.followerWriteSpacing)
        }
        return earliest
    }
}
