import MonkeyCore
import MonkeyShell

/// What happened, told everywhere it is wanted: the one way out for an
/// `Event` (`record`). The sink (the journal, or stderr) gets every event;
/// an event of a session also makes its EVENTS records (`Event.forEachRecordKind`),
/// kept in the `eventLog` (written to disk like typed entries) and
/// delivered to live EVENTS streams, to the session's waiters, and, for a
/// new session, to TAILs whose globs pick it up.
extension Daemon {
    /// Records the events of a group commit or of a batch of ticks.
    func record(_ events: [Event]) {
        guard !events.isEmpty else { return }
        sink.record(contentsOf: events)
        // One reading of the clock for a group's events: they happened together.
        var time: UInt64?
        for index in events.indices { publish(events[index], time: &time) }
    }

    /// Records one event (a reload, a typed entry, a restore).
    func record(_ event: Event) {
        sink.record(event)
        var time: UInt64?
        publish(event, time: &time)
    }

    /// Gives each of the event's records its id (reserved on disk first)
    /// and the time, keeps it, and delivers it.
    private func publish(_ event: Event, time: inout UInt64?) {
        guard let session = event.session else { return }
        event.forEachRecordKind { kind in
            let now = time ?? UInt64(Syscalls.wallClockSeconds() * 1000)
            time = now
            store.prepareEventID(eventLog.nextID)
            eventLog.append(event, as: kind, of: session, time: now)
            // Read back only for whoever wants it: most events go to no stream and no waiter.
            if subscriptions.hasEventStreams || subscriptions.hasWaiters, let record = eventLog.newest {
                subscriptions.deliver(record) { pass.touch($0) }
                if subscriptions.hasWaiters { answerWaiters(of: record) }
            }
            if kind == .created { subscriptions.followNewSession(session, engine: &engine) }
        }
    }
}
