import MonkeyCore

/// Responses written as the client reads them (LOG and TAIL replays, a
/// STATUS of every session, METRICS, the EVENTS replay, the HTTP body),
/// never more than `max_pending_output` at a time; and how TAILs and
/// EVENTS streams end.
extension Daemon {
    /// The most a stream writes at a time before the daemon checks for
    /// due ticks: 64 KiB of metrics text is about 1,400 samples, well
    /// under a millisecond of the queue.
    static let streamSlice = 64 * 1024

    /// Writes the next part of the connection's stream, as far as the
    /// output limit allows; a stream finished moves the connection on (to
    /// requests, or to following).
    func pumpStream(_ connection: Connection) {
        let byteLimit = connection.output.byteLimit(
            pending: engine.limits.maximumPendingOutput, slice: Daemon.streamSlice)
        connection.output.reserve(upTo: byteLimit)
        switch connection.phase {
        case .listing(var listing):
            let isFinished = connection.output.withBytes { output in
                engine.fill(&listing, into: &output, byteLimit: byteLimit)
            }
            connection.phase = isFinished ? .requests : .listing(listing)
            if isFinished { connection.appendStatus(.ok(nil)) }
        case .reportingMetrics(var metrics):
            let isFinished = connection.output.withBytes { output in
                fillMetrics(&metrics, into: &output, byteLimit: byteLimit)
            }
            connection.phase = isFinished ? .requests : .reportingMetrics(metrics)
            if isFinished { connection.appendStatus(.ok(nil)) }
        case .http(let exchange):
            pumpHTTPBody(exchange, on: connection, byteLimit: byteLimit)
        case .replaying(var stream):
            let progress = connection.output.withBytes { output in
                engine.fill(&stream, into: &output, byteLimit: byteLimit)
            }
            let next = Connection.phase(
                after: progress, of: stream, backlogLimit: engine.limits.maximumPendingOutput)
            connection.phase = next.phase
            if let status = next.status { connection.appendStatus(status) }
            if case .following = next.phase {
                subscriptions.follow(connection, CollectionOfOne(stream.session), engine: &engine)
            }
        case .tailing(var tail):
            let progress = connection.output.withBytes { output in
                engine.fill(&tail, into: &output, byteLimit: byteLimit)
            }
            switch progress {
            case .more:
                connection.phase = .tailing(tail)
            case .finished(let sessions) where tail.follows:
                // Caught up: follows these sessions, and those its globs match from now on.
                connection.phase = .following(
                    Connection.Following(
                        scope: .several(patterns: tail.patterns),
                        backlog: FollowerBacklog(limit: engine.limits.maximumPendingOutput)))
                subscriptions.follow(connection, sessions, engine: &engine)
            case .finished:
                connection.phase = .requests
                connection.appendStatus(.ok(nil))
            }
        case .streamingEvents(var streaming):
            let isCaughtUp = connection.output.withBytes { output in
                streaming.cursor.fill(from: eventLog, into: &output, byteLimit: byteLimit)
            }
            streaming.isLive = isCaughtUp
            connection.phase = .streamingEvents(streaming)
            if isCaughtUp { subscriptions.streamEvents(connection) }
        case .requests, .following, .waiting, .buildingCorpus, .closing:
            return
        }
    }

    /// The next part of the metrics text: the daemon's own families first,
    /// then the sessions' as far as `byteLimit`; true once all is written.
    func fillMetrics(_ metrics: inout MetricsListing, into output: inout [UInt8], byteLimit: Int) -> Bool {
        if !metrics.hasDaemonFamilies {
            let sources = DaemonMetrics.Sources(
                counters: counters, store: store.counters, sessions: engine.sessionCount,
                tickLateness: engine.tickLateness, ticksSkipped: engine.ticksSkipped,
                clients: connections.controlCount,
                httpClients: connections.httpCount)
            for family in DaemonMetrics.families(sources) { Exposition.append(family, to: &output) }
            metrics.hasDaemonFamilies = true
        }
        return engine.fill(&metrics, into: &output, byteLimit: byteLimit)
    }

    /// Ends a TAIL or EVENTS: takes it out of what it followed, reports
    /// what was skipped, then the status line.
    func endStream(_ connection: Connection, with status: Status) {
        var backlog: FollowerBacklog?
        switch connection.phase {
        case .following(let following): backlog = following.backlog
        case .streamingEvents(let streaming): backlog = streaming.backlog
        default: break
        }
        subscriptions.remove(connection, engine: &engine)
        if var backlog, let lost = backlog.finish() { connection.appendLost(lost) }
        connection.phase = .requests
        connection.appendStatus(status)
    }

    /// A session was deleted: a TAIL of it alone ends with `status`; one of
    /// several sessions gets a `deleted session=NAME` record and goes on.
    func endFollowers(of name: SessionName, with status: Status) {
        for connection in subscriptions.removeFollowers(of: name, engine: &engine) {
            guard case .following(let following) = connection.phase else { continue }
            switch following.scope {
            case .single:
                endStream(connection, with: status)
            case .several:
                connection.output.withBytes { Engine.appendDeleted(name, to: &$0) }
            }
            pass.touch(connection)
        }
    }
}
