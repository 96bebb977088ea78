import MonkeyCore
import MonkeyShell

/// Connections: accepting, reading requests, writing responses.
extension Daemon {
    /// Called when the poller has events: handles them, then lingers while
    /// more come (each wait at most 1 ms), which saves a Dispatch wake-up
    /// per request under load while ticks due meanwhile still run on time.
    func pollReady() {
        let start = Daemon.now()
        _ = poller.wait(timeoutMilliseconds: 0, handleEvent)
        while !isShuttingDown {
            runTicksIfDue()
            if Daemon.now() - start > Daemon.longestLinger { break }
            if poller.wait(timeoutMilliseconds: 1, handleEvent) == 0 { break }
        }
    }

    /// How long `pollReady` keeps the queue while requests keep coming: the
    /// other work on it (the sync, status, idle and watchdog timers and the
    /// sync's completion) waits at most this long behind a busy socket.
    /// Each return costs a round through Dispatch (its manager thread wakes,
    /// then a worker) while clients wait: with 50 busy connections,
    /// returning every 5 ms answered about 11 % fewer requests a second
    /// than returning every 20 ms (14 runs of each, side by side).
    static let longestLinger: UInt64 = 20_000_000

    private func handleEvent(_ token: UInt64, _ readiness: Poller.Readiness) {
        if token == Daemon.listenerToken {
            acceptConnections()
            return
        }
        if token == Daemon.signalToken {
            handleSignals()
            return
        }
        guard let connection = connections[token] else { return }
        if !readiness.isDisjoint(with: [.readable, .hangUp]) && connection.interest.readable {
            readRequests(connection)
        }
        guard connections[token] != nil else { return }
        service(connection)
        // A hang-up is reported whatever the interest, so a peer gone both
        // ways that is not being read would wake the loop for ever; nothing
        // can reach it any more.
        if readiness.contains(.hangUp) && !connection.interest.readable { close(connection) }
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
            let canContinue =
                everythingSent
                && (connection.isStreaming || (connection.hasPendingInput && !connection.isTailing))
            if !canContinue { break }
        }
        if connection.output.isEmpty && !connection.isStreaming {
            let finishedInput = connection.inputClosed && !connection.hasPendingInput && !connection.isTailing
            if connection.closeAfterFlush || finishedInput {
                close(connection)
                return
            }
        }
        updateInterest(connection)
        notePartialLine(connection)
    }

    private func updateInterest(_ connection: Connection) {
        let limit = engine.limits.maximumPendingOutput
        let readable =
            !connection.inputClosed && !connection.closeAfterFlush && !connection.hasPendingInput
            && (connection.isTailing || (!connection.isStreaming && connection.output.pendingCount < limit))
        // Lines still waiting after `service` gave up its turn (its round
        // limit) must bring it back: writability fires at once and does.
        let writable =
            !connection.output.isEmpty || connection.isStreaming
            || (connection.hasPendingInput && !connection.isTailing)
        guard readable != connection.interest.readable || writable != connection.interest.writable else { return }
        var interest: Poller.Readiness = []
        if readable { interest.insert(.readable) }
        if writable { interest.insert(.writable) }
        do {
            try poller.modify(connection.fd, token: connection.token, interest: interest)
            connection.interest = (readable, writable)
        } catch {
            close(connection)
        }
    }

    /// Handles the lines read so far, one at a time, while the connection
    /// is free to answer them and its output is under the limit.
    private func handlePendingFrames(_ connection: Connection) {
        let limit = engine.limits.maximumPendingOutput
        while !connection.closeAfterFlush {
            if !connection.isTailing && (connection.isStreaming || connection.output.pendingCount >= limit) {
                return
            }
            guard let frame = connection.nextFrame() else { return }
            if connection.isTailing {
                // Any line, even an empty one, ends a TAIL; it is not a request.
                endTail(connection, with: .ok(nil))
                continue
            }
            handle(frame, on: connection)
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
            appendStatus(.error(error), to: connection)
            return
        }
        if isShuttingDown {
            appendStatus(.error(ProtocolError(.shuttingDown, "monkeyd is shutting down")), to: connection)
            return
        }
        let reply = engine.handle(request, from: connection.peer, now: Daemon.now())
        for event in reply.events { events.record(event) }
        // Every change of state is an event; read-only requests leave the
        // status and the tick schedule alone, so they skip both.
        let changedState = !reply.events.isEmpty
        if changedState { statusMayHaveChanged() }
        if !reply.records.isEmpty {
            connection.output.withBytes { output in
                for record in reply.records { ResponseEncoder.append(record, to: &output) }
            }
        }
        if let status = reply.status { appendStatus(status, to: connection) }
        if reply.closesConnection { connection.closeAfterFlush = true }
        if let stream = reply.stream {
            connection.stream = stream
            pumpStream(connection)
        }
        if let listing = reply.listing {
            connection.listing = listing
            pumpStream(connection)
        }
        if case .delete(let name) = request, case .ok = reply.status {
            endFollowers(of: name, with: .error(ProtocolError(.noSuchSession, "session \(name) was deleted")))
        }
        if changedState { rearmTimer() }
    }

    func appendStatus(_ status: Status, to connection: Connection) {
        connection.output.withBytes { ResponseEncoder.append(status, to: &$0) }
    }

    /// Writes the next part of a LOG or TAIL replay, or of a STATUS of
    /// every session, as far as the output limit allows.
    private func pumpStream(_ connection: Connection) {
        let byteLimit = connection.output.byteLimit(pending: engine.limits.maximumPendingOutput)
        if var listing = connection.listing {
            let isFinished = connection.output.withBytes { output in
                engine.fill(&listing, into: &output, byteLimit: byteLimit)
            }
            connection.listing = isFinished ? nil : listing
            if isFinished { appendStatus(.ok(nil), to: connection) }
            return
        }
        guard var stream = connection.stream else { return }
        let progress = connection.output.withBytes { output in
            engine.fill(&stream, into: &output, byteLimit: byteLimit)
        }
        connection.stream = stream
        switch progress {
        case .more:
            return
        case .finished where stream.isFollowing:
            connection.stream = nil
            connection.followedSession = stream.session
            connection.followsAfterID = stream.lastID
            addFollower(connection.token, of: stream.session)
        case .finished:
            connection.stream = nil
            appendStatus(.ok(nil), to: connection)
        case .sessionGone:
            connection.stream = nil
            appendStatus(
                .error(ProtocolError(.noSuchSession, "session \(stream.session) was deleted")), to: connection)
        }
    }

    /// Ends a TAIL: reports skipped entries, then the status line.
    func endTail(_ connection: Connection, with status: Status) {
        if let name = connection.followedSession { removeFollower(connection.token, of: name) }
        connection.followedSession = nil
        connection.stream = nil
        if connection.lostCount > 0 {
            connection.output.withBytes { output in
                ResponseEncoder.append(
                    Record(type: "lost", fields: [("count", String(connection.lostCount))]), to: &output)
            }
            connection.lostCount = 0
            connection.isSkipping = false
        }
        appendStatus(status, to: connection)
    }

    private func endFollowers(of name: SessionName, with status: Status) {
        for token in followers[name] ?? [] {
            guard let connection = connections[token] else { continue }
            endTail(connection, with: status)
            service(connection)
        }
        followers[name] = nil
        engine.setFollowed(name, false)
    }

    private func addFollower(_ token: UInt64, of name: SessionName) {
        followers[name, default: []].append(token)
        engine.setFollowed(name, true)
    }

    private func removeFollower(_ token: UInt64, of name: SessionName) {
        followers[name]?.removeAll { $0 == token }
        guard followers[name]?.isEmpty == true else { return }
        followers[name] = nil
        engine.setFollowed(name, false)
    }

    func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.token) != nil else { return }
        if let name = connection.followedSession { removeFollower(connection.token, of: name) }
        poller.remove(connection.fd)
        Syscalls.close(connection.fd)
        resumeAccepting()
    }
}
