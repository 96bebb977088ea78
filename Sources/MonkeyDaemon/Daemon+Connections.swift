import MonkeyCore
import MonkeyShell

/// Connections: accepting, reading requests, writing responses.
extension Daemon {
    /// Called when the poller has events: handles them, then lingers while
    /// more come (see `TickPlan.longestLinger`), which saves a Dispatch
    /// wake-up per request under load while ticks due meanwhile still run
    /// on time.
    func pollReady() {
        wakeUps.note(.connections)
        let start = Daemon.now()
        _ = poller.wait(timeoutMilliseconds: 0, handleEvent)
        commitChanges()
        while !isShuttingDown {
            runTicksIfDue(onlyWhenDue: true)
            if Daemon.now() - start > TickPlan.longestLinger { break }
            if poller.wait(timeoutMilliseconds: TickPlan.lingerPollMilliseconds, handleEvent) == 0 { break }
            commitChanges()
        }
    }

    private func handleEvent(_ token: UInt64, _ readiness: Poller.Readiness) {
        if token == Daemon.listenerToken {
            acceptConnections()
            return
        }
        if token == Daemon.metricsListenerToken {
            acceptMetricsConnections()
            return
        }
        if token == Daemon.signalToken {
            handleSignals()
            return
        }
        guard let connection = connections[token] else { return }
        if !readiness.isDisjoint(with: [.readable, .hangUp]) && connection.watched.readable {
            readRequests(connection)
        }
        guard !connection.isClosed else { return }
        service(connection)
        // A hang-up is reported whatever the interest, so a peer gone both
        // ways that is not being read would wake the loop for ever; nothing
        // can reach it any more.
        if !readiness.isDisjoint(with: .hangUp) && !connection.watched.readable { close(connection) }
    }

    /// Reads what the client sent, once the bytes read before are used up.
    private func readRequests(_ connection: Connection) {
        guard !connection.hasPendingInput else { return }
        let result = readBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemError) in try Syscalls.read(connection.fd, into: buffer) }
        }
        switch result {
        case .failure:
            close(connection)
        case .success(.wouldBlock):
            return
        case .success(.endOfFile):
            connection.inputClosed = true
        case .success(.bytes(let count)):
            readBuffer.withUnsafeBytes { buffer in
                connection.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            // The client is sending: a line it leaves unfinished now is timed from now.
            connection.partialLineSince = nil
        }
    }

    /// Moves a connection forward: handles waiting lines, continues a
    /// replay, writes what is queued, and decides what to wait for next.
    func service(_ connection: Connection) {
        for _ in 0..<16 {
            if connection.isStreaming { pumpStream(connection) }
            handlePendingFrames(connection)
            if connection.inputClosed && connection.isTailing {
                // A follower that hangs up ends its TAIL.
                endTail(connection, with: .ok(nil))
            }
            let everythingSent: Bool
            do {
                everythingSent = try connection.output.flush(to: connection.fd)
            } catch {
                close(connection)
                return
            }
            guard everythingSent else { break }
            if case .closing = connection.phase { break }
            // A long stream gives way to ticks that fall due while it is
            // written: the loop runs them, and the stream goes on at the
            // next readiness.
            if connection.isStreaming && isTickDue() { break }
            if !connection.isStreaming && !(connection.hasPendingInput && !connection.isTailing) { break }
        }
        if connection.output.isEmpty {
            switch connection.phase {
            case .closing:
                close(connection)
                return
            case .requests where connection.inputClosed && !connection.hasPendingInput:
                close(connection)
                return
            case .http(let exchange):
                if finishExchange(exchange, on: connection) { return }
            default:
                break
            }
        }
        updateInterest(connection)
        notePartialLine(connection)
    }

    private func updateInterest(_ connection: Connection) {
        let interest = connection.interest(outputLimit: engine.limits.maximumPendingOutput)
        guard interest != connection.watched else { return }
        var readiness: Poller.Readiness = []
        if interest.readable { readiness.insert(.readable) }
        if interest.writable { readiness.insert(.writable) }
        do {
            try poller.modify(connection.fd, token: connection.token, interest: readiness)
            connection.watched = interest
        } catch {
            close(connection)
        }
    }

    /// Handles the lines read so far, one at a time, while the connection
    /// is free to act on them and its output is under the limit.
    private func handlePendingFrames(_ connection: Connection) {
        let limit = engine.limits.maximumPendingOutput
        while true {
            switch connection.phase {
            case .http:
                handleHTTPInput(connection)
                return
            case .closing, .listing, .reportingMetrics, .waiting: return
            case .replaying(let stream) where !stream.isFollowing: return
            case .tailing(let tail) where !tail.follows: return
            case .streamingEvents(let streaming) where !streaming.isLive: return
            case .requests where connection.output.pendingCount >= limit: return
            case .requests, .replaying, .following, .tailing, .streamingEvents: break
            }
            // Each line is copied into the same buffer; the frame borrows
            // it while the request is handled.
            guard let cut = connection.nextFrame(into: &requestLine) else { return }
            if connection.isTailing {
                // Any line, even an empty one, ends a TAIL or EVENTS; it is not a request.
                endTail(connection, with: .ok(nil))
                continue
            }
            handle(cut == .line ? .line(requestLine) : .lineTooLong, on: connection)
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
            requestCounts.note(frame.verb, error.code)
            appendStatus(.error(error), to: connection)
            return
        }
        if isShuttingDown {
            requestCounts.note(request.verb, .shuttingDown)
            appendStatus(.error(ProtocolError(.shuttingDown, "monkeyd is shutting down")), to: connection)
            return
        }
        var reply = engine.handle(request, from: connection.peer, now: Daemon.now())
        guard let change = reply.change else {
            // A WAIT left waiting is counted when it ends, with how it ended.
            if reply.wait == nil { requestCounts.note(request.verb, reply.errorCode) }
            carryOut(reply, on: connection)
            return
        }
        // Written now, in order, and held back until the change is durable
        // (see `commitChanges`); requests after it are answered meanwhile.
        let start = connection.output.end
        if let status = reply.status { appendStatus(status, to: connection) }
        connection.output.hold(from: start)
        pendingChanges.append(
            PendingChange(
                // Moved out of the reply, not copied and then freed with it.
                connection: connection, verb: request.verb, change: change, event: reply.event.take(),
                endsFollowers: reply.endsFollowers.take(),
                status: start..<connection.output.end))
    }

    /// Does what a reply that changes nothing says: queue its lines, start
    /// its stream.
    private func carryOut(_ reply: Reply, on connection: Connection) {
        if !reply.records.isEmpty {
            connection.output.withBytes { output in
                for record in reply.records { ResponseEncoder.append(record, to: &output) }
            }
        }
        if let status = reply.status { appendStatus(status, to: connection) }
        connection.phase = Connection.phase(startedBy: reply)
        // Sessions its globs match may be created while it replays.
        if let tail = reply.tail, tail.follows, tail.patterns.contains(where: \.isGlob) {
            globFollowers.insert(connection.token)
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

    /// Makes every change read since the last commit durable with one write
    /// and one sync (group commit), then ends the followers they end,
    /// sends their `OK`s and only then logs their events; if the disk
    /// refuses, takes them all back, newest first, and answers
    /// `ERR storage-error` instead.
    /// No tick runs between a change and its commit.
    func commitChanges() {
        while !pendingChanges.isEmpty {
            // The group's array is the next group's once emptied: a pass
            // of 100 changes would otherwise grow a new one 8 times.
            var group = pendingChanges
            pendingChanges = spareChanges
            spareChanges = []
            var isCommitted = false
            do {
                try store.commit(group.map(\.change.effect)) { engine.snapshot(of: $0) }
                isCommitted = true
                // By index: a loop over the elements copies each change whole.
                for index in group.indices {
                    requestCounts.note(group[index].verb, nil)
                    if let (session, status) = group[index].endsFollowers { endFollowers(of: session, with: status) }
                }
            } catch {
                for pending in group.reversed() {
                    let refusal = engine.revert(pending.change, because: error)
                    requestCounts.note(pending.verb, refusal.errorCode)
                    var line: [UInt8] = []
                    if let status = refusal.status { ResponseEncoder.append(status, to: &line) }
                    pending.connection.output.replace(pending.status, with: line)
                }
            }
            commitCount &+= 1
            for index in group.indices where group[index].connection.lastCommit != commitCount {
                let connection = group[index].connection
                connection.lastCommit = commitCount
                connection.output.release()
                if !connection.isClosed { service(connection) }
            }
            // After the answers are on their way: a client reads them and
            // sends its next requests while the daemon logs the group.
            if isCommitted { record(group.compactMap(\.event)) }
            // Not the array of a storm of thousands, kept for ever.
            if group.capacity <= 1024 {
                group.removeAll(keepingCapacity: true)
                spareChanges = group
            }
            statusMayHaveChanged()
            rearmTimer()
            armSyncTimer()
        }
        if store.policy.wantsSnapshot {
            store.compact(
                engine.snapshots, nextEpoch: engine.nextEpoch, nextEventID: eventLog.nextID, replyingOn: queue)
        }
    }

    func appendStatus(_ status: Status, to connection: Connection) {
        connection.output.withBytes { ResponseEncoder.append(status, to: &$0) }
    }

    /// Writes the next part of a LOG or TAIL replay, a STATUS of every
    /// session or METRICS, as far as the output limit allows.
    private func pumpStream(_ connection: Connection) {
        let byteLimit = connection.output.byteLimit(
            pending: engine.limits.maximumPendingOutput, slice: Daemon.streamSlice)
        connection.output.reserve(upTo: byteLimit)
        switch connection.phase {
        case .listing(var listing):
            let isFinished = connection.output.withBytes { output in
                engine.fill(&listing, into: &output, byteLimit: byteLimit)
            }
            connection.phase = isFinished ? .requests : .listing(listing)
            if isFinished { appendStatus(.ok(nil), to: connection) }
        case .reportingMetrics(var metrics):
            let isFinished = connection.output.withBytes { output in
                fillMetrics(&metrics, into: &output, byteLimit: byteLimit)
            }
            connection.phase = isFinished ? .requests : .reportingMetrics(metrics)
            if isFinished { appendStatus(.ok(nil), to: connection) }
        case .http(let exchange):
            pumpHTTPBody(exchange, on: connection, byteLimit: byteLimit)
        case .replaying(var stream):
            let progress = connection.output.withBytes { output in
                engine.fill(&stream, into: &output, byteLimit: byteLimit)
            }
            let next = Connection.phase(
                after: progress, of: stream, backlogLimit: engine.limits.maximumPendingOutput)
            connection.phase = next.phase
            if let status = next.status { appendStatus(status, to: connection) }
            if case .following = next.phase { addFollower(connection.token, of: stream.session) }
        case .tailing(var tail):
            let progress = connection.output.withBytes { output in
                engine.fill(&tail, into: &output, byteLimit: byteLimit)
            }
            switch progress {
            case .more:
                connection.phase = .tailing(tail)
            case .finished(let sessions) where tail.follows:
                startFollowing(connection, patterns: tail.patterns, sessions: sessions)
            case .finished:
                connection.phase = .requests
                appendStatus(.ok(nil), to: connection)
            }
        case .streamingEvents(var streaming):
            let isCaughtUp = connection.output.withBytes { output in
                streaming.cursor.fill(from: eventLog, into: &output, byteLimit: byteLimit)
            }
            streaming.isLive = isCaughtUp
            connection.phase = .streamingEvents(streaming)
            if isCaughtUp { eventFollowers.insert(connection.token) }
        case .requests, .following, .waiting, .closing:
            return
        }
    }

    /// The most a stream writes at a time before the daemon checks for
    /// due ticks: 64 KiB of metrics text is about 1,400 samples, well
    /// under a millisecond of the queue.
    static let streamSlice = 64 * 1024

    /// A tick is due.
    func isTickDue() -> Bool {
        guard let deadline = engine.nextDeadline() else { return false }
        return deadline <= Daemon.now()
    }

    /// The next part of the metrics text: the daemon's own families first,
    /// then the sessions' as far as `byteLimit`; true once all is written.
    func fillMetrics(_ metrics: inout MetricsListing, into output: inout [UInt8], byteLimit: Int) -> Bool {
        if !metrics.hasDaemonFamilies {
            for family in daemonMetrics() { Exposition.append(family, to: &output) }
            metrics.hasDaemonFamilies = true
        }
        return engine.fill(&metrics, into: &output, byteLimit: byteLimit)
    }

    /// A change applied in memory and answered, waiting for its commit.
    struct PendingChange {
        let connection: Connection
        let verb: Verb
        let change: Change
        let event: Event?
        let endsFollowers: (session: SessionName, status: Status)?
        /// Where its status line lies in the connection's output.
        let status: Range<Int>
    }

    func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.token) != nil else { return }
        connection.isClosed = true
        if connection.isHTTP { httpConnectionCount -= 1 }
        stopStreaming(connection)
        poller.remove(connection.fd)
        Syscalls.close(connection.fd)
        resumeAccepting()
    }
}
