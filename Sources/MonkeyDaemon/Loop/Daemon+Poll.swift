import MonkeyCore
import MonkeyShell

/// The poller's side of the loop: what it reports, reading what clients
/// send, and moving a connection forward (`service`).
extension Daemon {
    /// Called when the poller has events: handles them in a pass, then
    /// lingers while more come (see `TickPlan.longestLinger`), each wait a
    /// pass of its own, which saves a Dispatch wake-up per request under
    /// load while ticks due meanwhile still run on time.
    func pollReady() {
        counters.wakeUps.note(.connections)
        let start = Daemon.now()
        runPass { _ = poller.wait(timeoutMilliseconds: 0, handleEvent) }
        while !isShuttingDown {
            if isTickDue() { runPass { runTicksIfDue(onlyWhenDue: true) } }
            if Daemon.now() - start > TickPlan.longestLinger { break }
            var events = 0
            runPass { events = poller.wait(timeoutMilliseconds: TickPlan.lingerPollMilliseconds, handleEvent) }
            if events == 0 { break }
        }
    }

    private func handleEvent(_ token: UInt64, _ readiness: Poller.Readiness) {
        switch token {
        case PollToken.controlListener:
            acceptConnections(from: .control)
            return
        case PollToken.metricsListener:
            acceptConnections(from: .metrics)
            return
        case PollToken.signals:
            handleSignals()
            return
        default:
            break
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
        let result = scratch.read.withUnsafeMutableBytes { buffer in
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
            scratch.read.withUnsafeBytes { buffer in
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
                endStream(connection, with: .ok(nil))
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

    /// A tick is due.
    func isTickDue() -> Bool {
        guard let deadline = engine.nextDeadline() else { return false }
        return deadline <= Daemon.now()
    }
}
