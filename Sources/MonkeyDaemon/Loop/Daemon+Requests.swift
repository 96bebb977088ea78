import MonkeyCore

/// Requests: the lines a connection sent, framed, parsed, answered by the
/// engine, and carried out: a reply that changes nothing at once, a change
/// held for the group commit at the end of the pass.
extension Daemon {
    /// Handles the lines read so far, one at a time, while the connection
    /// is free to act on them and its output is under the limit.
    func handlePendingFrames(_ connection: Connection) {
        let limit = engine.limits.maximumPendingOutput
        while true {
            switch connection.phase {
            case .http:
                handleHTTPInput(connection)
                return
            case .closing, .listing, .reportingMetrics, .waiting, .buildingCorpus: return
            case .replaying(let stream) where !stream.isFollowing: return
            case .tailing(let tail) where !tail.follows: return
            case .streamingEvents(let streaming) where !streaming.isLive: return
            case .requests where connection.output.pendingCount >= limit: return
            case .requests, .replaying, .following, .tailing, .streamingEvents: break
            }
            // Each line is copied into the same buffer; the frame borrows
            // it while the request is handled.
            guard let cut = connection.nextFrame(into: &scratch.requestLine) else { return }
            if connection.isTailing {
                // Any line, even an empty one, ends a TAIL or EVENTS; it is not a request.
                endStream(connection, with: .ok(nil))
                continue
            }
            handle(cut == .line ? .line(scratch.requestLine) : .lineTooLong, on: connection)
        }
    }

    private func handle(_ frame: LineFramer.Frame, on connection: Connection) {
        let request: Request
        do throws(ProtocolError) {
            switch frame {
            case .lineTooLong:
                throw ProtocolError(
                    .lineTooLong,
                    "request lines are limited to \(engine.limits.maximumLineLength) bytes; the rest of the line was discarded"
                )
            case .line(let bytes):
                guard let parsed = try RequestParser(limits: engine.limits).parse(bytes) else { return }
                request = parsed
            }
        } catch {
            counters.requests.note(frame.verb, error.code)
            connection.appendStatus(.error(error))
            return
        }
        answer(request, on: connection)
    }

    /// Answers a request read whole: at once, or (a corpus to build) once
    /// the `CorpusBuilder` is done, which calls this again with it built.
    func answer(_ request: Request, on connection: Connection) {
        var request = request
        if isShuttingDown {
            counters.requests.note(request.verb, .shuttingDown)
            connection.appendStatus(.error(ProtocolError(.shuttingDown, "monkeyd is shutting down")))
            return
        }
        // A corpus's files are read after the checks that come first
        // (shutdown, and permission, which the engine checks itself: a
        // peer that may not change state has nothing read for it).
        if !request.verb.changesState || connection.peer.mayChange {
            if let build = engine.corpusBuild(for: request) {
                buildCorpus(build, for: request, on: connection)
                return
            }
            request = readingCorpora(of: request)
        }
        var reply = engine.handle(request, from: connection.peer, now: Daemon.now())
        guard let change = reply.change else {
            // A WAIT left waiting is counted when it ends, with how it ended.
            if reply.wait == nil { counters.requests.note(request.verb, reply.errorCode) }
            carryOut(reply, on: connection)
            return
        }
        commits.hold(change, of: &reply, verb: request.verb, on: connection)
    }

    /// Does what a reply that changes nothing says: queue its lines, start
    /// its stream, its EVENTS or its WAIT.
    private func carryOut(_ reply: Reply, on connection: Connection) {
        if !reply.records.isEmpty {
            connection.output.withBytes { output in
                for record in reply.records { ResponseEncoder.append(record, to: &output) }
            }
        }
        if let status = reply.status { connection.appendStatus(status) }
        connection.phase = Connection.phase(startedBy: reply)
        // Sessions its globs match may be created while it replays.
        if let tail = reply.tail, tail.follows, tail.patterns.contains(where: \.isGlob) {
            subscriptions.followGlobs(connection)
        }
        if let query = reply.eventStream {
            connection.phase = .streamingEvents(
                Connection.EventStreaming(
                    cursor: EventCursor.start(query, in: eventLog),
                    backlog: FollowerBacklog(limit: engine.limits.maximumPendingOutput)))
        }
        if let wait = reply.wait { startWaiting(connection, for: wait) }
        if connection.isStreaming { pumpStream(connection) }
    }
}
