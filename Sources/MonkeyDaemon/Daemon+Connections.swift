import MonkeyCore
import MonkeyShell

/// Connections: accepting, reading requests, writing responses.
extension Daemon {
    /// Called when the poller has events: handles them, then lingers a few
    /// milliseconds for more, which saves a Dispatch wake-up per request
    /// under load while ticks due meanwhile still run on time.
    func pollReady() {
        let start = Daemon.now()
        _ = poller.wait(timeoutMilliseconds: 0, handleEvent)
        while !isShuttingDown {
            runTicksIfDue()
            if Daemon.now() - start > 5_000_000 { break }
            if poller.wait(timeoutMilliseconds: 1, handleEvent) == 0 { break }
        }
    }

    private func handleEvent(_ token: UInt64, _ readiness: Poller.Readiness) {
        if token == Daemon.listenerToken {
            acceptConnections()
            return
        }
        guard let connection = connections[token] else { return }
        if !readiness.isDisjoint(with: [.readable, .hangUp]) && connection.interest.readable {
            readRequests(connection)
        } else if readiness.contains(.hangUp) && !connection.interest.readable {
            // The peer went away while we were not reading; writing will fail and close it.
        }
        if connections[token] != nil { service(connection) }
    }

    private func acceptConnections() {
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard let accepted = try Syscalls.accept(listener.fd) else { return }
                fd = accepted
            } catch {
                events.log(.warning, "cannot accept a connection: \(error)")
                return
            }
            if connections.count >= engine.limits.maximumClients {
                var refusal: [UInt8] = []
                ResponseEncoder.append(
                    .error(
                        ProtocolError(
                            .busy, "too many clients (\(engine.limits.maximumClients)); try again later")),
                    to: &refusal)
                _ = refusal.withUnsafeBytes { try? Syscalls.send(fd, $0) }
                Syscalls.close(fd)
                continue
            }
            let peer = peerOf(fd)
            let token = nextToken
            nextToken += 1
            let connection = Connection(
                fd: fd, token: token, peer: peer, maximumLineLength: engine.limits.maximumLineLength,
                now: Daemon.now())
            do {
                try poller.add(fd, token: token, interest: .readable)
            } catch {
                events.log(.warning, "cannot watch a new connection: \(error)")
                Syscalls.close(fd)
                continue
            }
            connections[token] = connection
        }
    }

    private func peerOf(_ fd: Int32) -> Peer {
        guard let credentials = try? PeerCredentials.of(fd) else {
            return Peer(uid: UInt32.max, pid: 0, mayChange: false)
        }
        let mayChange =
            credentials.uid == 0 || credentials.uid == ownUserID
            || privilegedGroup.map { credentials.isMember(of: $0) } == true
        return Peer(uid: credentials.uid, pid: credentials.pid, mayChange: mayChange)
    }

    private func readRequests(_ connection: Connection) {
        // A few reads per event, so one busy client cannot starve the others.
        for _ in 0..<4 {
            let result = readBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try Syscalls.read(connection.fd, into: buffer) }
            }
            switch result {
            case .failure:
                close(connection)
                return
            case .success(.wouldBlock):
                return
            case .success(.endOfFile):
                connection.inputClosed = true
                return
            case .success(.bytes(let count)):
                readBuffer.withUnsafeBytes { buffer in
                    connection.framer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { frame in
                        connection.pendingFrames.append(frame)
                    }
                }
                connection.lastActivity = Daemon.now()
                if count < readBuffer.count { return }
            }
        }
    }

    /// Moves a connection forward: handles waiting lines, continues a
    /// replay, writes what is queued, and decides what to wait for next.
    func service(_ connection: Connection) {
        for _ in 0..<16 {
            if connection.stream != nil { pumpStream(connection) }
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
                && (connection.stream != nil || (!connection.pendingFrames.isEmpty && !connection.isTailing))
            if !canContinue { break }
        }
        if connection.output.isEmpty && connection.stream == nil {
            let finishedInput = connection.inputClosed && connection.pendingFrames.isEmpty && !connection.isTailing
            if connection.closeAfterFlush || finishedInput {
                close(connection)
                return
            }
        }
        updateInterest(connection)
    }

    private func updateInterest(_ connection: Connection) {
        let limit = engine.limits.maximumPendingOutput
        let readable =
            !connection.inputClosed && !connection.closeAfterFlush
            && (connection.isTailing
                || (connection.pendingFrames.isEmpty && connection.stream == nil
                    && connection.output.pendingCount < limit))
        let writable = !connection.output.isEmpty || connection.stream != nil
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

    private func handlePendingFrames(_ connection: Connection) {
        var handled = 0
        defer { connection.pendingFrames.removeFirst(handled) }
        let limit = engine.limits.maximumPendingOutput
        for frame in connection.pendingFrames {
            if connection.closeAfterFlush { return }
            if connection.isTailing {
                // Any line, even an empty one, ends a TAIL; it is not a request.
                handled += 1
                endTail(connection, with: .ok(nil))
                continue
            }
            if connection.stream != nil || connection.output.pendingCount >= limit { return }
            handled += 1
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
        if case .delete(let name) = request, case .ok = reply.status {
            endFollowers(of: name, with: .error(ProtocolError(.noSuchSession, "session \(name) was deleted")))
        }
        rearmTimer()
    }

    func appendStatus(_ status: Status, to connection: Connection) {
        connection.output.withBytes { ResponseEncoder.append(status, to: &$0) }
    }

    /// Writes the next part of a LOG or TAIL replay, as far as the output limit allows.
    private func pumpStream(_ connection: Connection) {
        guard var stream = connection.stream else { return }
        let byteLimit = connection.output.byteLimit(pending: engine.limits.maximumPendingOutput)
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
            followers[stream.session, default: []].append(connection.token)
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
        if let name = connection.followedSession {
            followers[name]?.removeAll { $0 == connection.token }
            if followers[name]?.isEmpty == true { followers[name] = nil }
        }
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
    }

    func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.token) != nil else { return }
        if let name = connection.followedSession {
            followers[name]?.removeAll { $0 == connection.token }
            if followers[name]?.isEmpty == true { followers[name] = nil }
        }
        poller.remove(connection.fd)
        Syscalls.close(connection.fd)
    }
}
