import MonkeyCore
import MonkeyShell

/// What happened, told everywhere it is wanted: the journal, and the
/// EVENTS stream (kept in `eventLog`, written to disk like typed entries,
/// delivered to live streams, to waiters and to TAILs whose globs pick up
/// new sessions).
extension Daemon {
    /// Logs journal events and publishes the stream's events they make.
    func record(_ journalEvents: [Event]) {
        guard !journalEvents.isEmpty else { return }
        events.record(contentsOf: journalEvents)
        var touched: [Connection] = []
        // One reading of the clock for a group's events: they happened together.
        let time = UInt64(Syscalls.wallClockSeconds() * 1000)
        for index in journalEvents.indices {
            StreamEventDraft.forEachDraft(of: journalEvents[index]) { publish($0, at: time, touching: &touched) }
        }
        for connection in touched where !connection.isClosed { service(connection) }
    }

    /// Gives an event its id (reserved on disk first) and time, keeps it,
    /// and delivers it.
    private func publish(_ draft: StreamEventDraft, at time: UInt64, touching touched: inout [Connection]) {
        store.prepareEventID(eventLog.nextID)
        let event = eventLog.append(draft, time: time)
        if !eventFollowers.isEmpty { deliverToStreams(event, touching: &touched) }
        if waiters[event.session] != nil { answerWaiters(of: event) }
        if event.kind == .created && !globFollowers.isEmpty { followNewSession(event.session) }
    }

    /// Writes the event to every live EVENTS stream that wants it, bounded
    /// like a follower (see `FollowerBacklog`).
    private func deliverToStreams(_ event: StreamEvent, touching touched: inout [Connection]) {
        lineScratch.removeAll(keepingCapacity: true)
        event.append(to: &lineScratch)
        for token in eventFollowers {
            guard let connection = connections[token], case .streamingEvents(var streaming) = connection.phase,
                streaming.cursor.wants(event)
            else { continue }
            let delivery = streaming.backlog.deliver(
                length: lineScratch.count, pending: connection.output.pendingCount)
            streaming.cursor.lastID = event.id
            connection.phase = .streamingEvents(streaming)
            if let lost = delivery.reportsLost {
                connection.output.withBytes { ResponseEncoder.append(FollowerBacklog.lostRecord(lost), to: &$0) }
            }
            if delivery.writesLine { connection.output.append(lineScratch) }
            if !touched.contains(where: { $0 === connection }) { touched.append(connection) }
        }
    }
}
