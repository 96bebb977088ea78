import MonkeyCore

/// Followers of typing: TAIL caught up, of one session or of several and
/// globs; their registration by session, and how their streams end.
extension Daemon {
    /// A TAIL of several sessions or globs caught up: follows `sessions`,
    /// and the sessions its globs match from now on.
    func startFollowing(_ connection: Connection, patterns: [SessionPattern], sessions: [SessionName]) {
        connection.phase = .following(
            Connection.Following(
                scope: .several(patterns: patterns, sessions: Set(sessions)),
                backlog: FollowerBacklog(limit: engine.limits.maximumPendingOutput)))
        for name in sessions { addFollower(connection.token, of: name) }
        if patterns.contains(where: \.isGlob) { globFollowers.insert(connection.token) }
    }

    /// Ends a TAIL or EVENTS: reports what was skipped, then the status line.
    func endTail(_ connection: Connection, with status: Status) {
        var backlog: FollowerBacklog?
        switch connection.phase {
        case .following(let following): backlog = following.backlog
        case .streamingEvents(let streaming): backlog = streaming.backlog
        default: break
        }
        stopStreaming(connection)
        if var backlog, let lost = backlog.finish() {
            connection.output.withBytes { ResponseEncoder.append(FollowerBacklog.lostRecord(lost), to: &$0) }
        }
        connection.phase = .requests
        appendStatus(status, to: connection)
    }

    /// Takes the connection out of every registry of followers, event
    /// streams and waiters (it ends, or closes).
    func stopStreaming(_ connection: Connection) {
        switch connection.phase {
        case .following(let following):
            for name in following.sessions { removeFollower(connection.token, of: name) }
            globFollowers.remove(connection.token)
        case .streamingEvents:
            eventFollowers.remove(connection.token)
        case .waiting(let waiting):
            waiters[waiting.session]?.removeAll { $0 == connection.token }
            if waiters[waiting.session]?.isEmpty == true { waiters[waiting.session] = nil }
        default:
            break
        }
    }

    /// A session was deleted: a TAIL of it alone ends with `status`; one of
    /// several sessions gets a `deleted session=NAME` record and goes on.
    func endFollowers(of name: SessionName, with status: Status) {
        for token in followers[name] ?? [] {
            guard let connection = connections[token], case .following(var following) = connection.phase else {
                continue
            }
            switch following.scope {
            case .single:
                endTail(connection, with: status)
            case .several(let patterns, var sessions):
                sessions.remove(name)
                following.scope = .several(patterns: patterns, sessions: sessions)
                connection.phase = .following(following)
                connection.output.withBytes { Engine.appendDeleted(name, to: &$0) }
            }
            service(connection)
        }
        followers[name] = nil
        engine.setFollowed(name, false)
    }

    /// A session was created: TAILs whose globs match it follow it too.
    func followNewSession(_ name: SessionName) {
        for token in globFollowers {
            guard let connection = connections[token], case .following(var following) = connection.phase,
                case .several(let patterns, var sessions) = following.scope,
                patterns.contains(where: { $0.isGlob && $0.matches(name) })
            else { continue }
            sessions.insert(name)
            following.scope = .several(patterns: patterns, sessions: sessions)
            connection.phase = .following(following)
            addFollower(token, of: name)
        }
    }

    func addFollower(_ token: UInt64, of name: SessionName) {
        followers[name, default: []].append(token)
        engine.setFollowed(name, true)
    }

    func removeFollower(_ token: UInt64, of name: SessionName) {
        followers[name]?.removeAll { $0 == token }
        guard followers[name]?.isEmpty == true else { return }
        followers[name] = nil
        engine.setFollowed(name, false)
    }
}
