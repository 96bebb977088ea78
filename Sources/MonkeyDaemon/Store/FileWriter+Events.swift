import MonkeyCore

/// The events file: the event log's records appended at each sync, and
/// the file rewritten with the log's newest when it holds twice as many.
extension FileWriter {
    /// Replaces the events file when the outbox holds a whole one, or
    /// appends the outbox's new events to it (with those whose write failed
    /// before), and syncs. Only events newer than the newest already
    /// written are written: a failed rewrite leaves the file as it was, and
    /// the events it was to hold are appended instead.
    func writeEvents(_ outbox: Outbox) throws(StorageError) {
        var failure: StorageError?
        var records = eventsUnwritten
        if let retained = outbox.eventsFile {
            do {
                try events.replace(with: EventFile.encode(retained), what: "the events")
                records = []
                eventsThroughID = max(eventsThroughID, retained.last?.id ?? 0)
            } catch {
                // The file keeps growing until the next rewrite; nothing is lost.
                failure = error
            }
        }
        for event in outbox.eventsFile ?? outbox.newEvents where event.id > eventsThroughID {
            EventFile.append(event, to: &records, assemblingIn: eventScratch)
            eventsThroughID = event.id
        }
        eventsUnwritten = []
        if !records.isEmpty {
            do {
                try events.append(records, sync: true)
            } catch {
                eventsUnwritten = records
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
