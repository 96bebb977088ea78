extension Event {
    /// The kinds of the EVENTS records this event makes, in order: a START
    /// of a new session is `created`, then `started`; STOP `stopped`; SET
    /// `updated`; CLEAR `cleared`; DELETE `deleted`; a hit `hit`; best
    /// progress `best`; a restore `restored`. A reload and a typed entry
    /// are no session's records.
    public func forEachRecordKind(_ body: (EventRecord.Kind) -> Void) {
        switch kind {
        case .start:
            if case .started(let start) = payload, start.created { body(.created) }
            body(.started)
        case .stop: body(.stopped)
        case .set: body(.updated)
        case .clear: body(.cleared)
        case .delete: body(.deleted)
        case .hit: body(.hit)
        case .best: body(.best)
        case .covered: body(.covered)
        case .coverage: body(.coverage)
        case .restore: body(.restored)
        case .reload, .typed: return
        }
    }
}

extension Event.Payload {
    /// The fields of this event's record of `kind`: the settings a START
    /// types with; what a SET changed (without its warning, which is the
    /// journal's); a hit's entry; the text of best progress; whether a
    /// restored session types.
    func writeRecordFields<Fields: FieldWriter>(of kind: EventRecord.Kind, to fields: inout Fields) {
        switch self {
        case .started(let start) where kind == .started:
            Event.writeSettings(start.settings, to: &fields)
        case .updated(let update):
            Event.writeChange(of: update, to: &fields)
        case .hit(let entry, _):
            fields.write("entry_id", decimal: entry.id)
            fields.write("number", decimal: entry.number)
            fields.write("text", entry.text)
        case .covering(let entry, let newlyCovered):
            fields.write("entry_id", decimal: entry.id)
            fields.write("number", decimal: entry.number)
            fields.write("new", decimal: UInt64(newlyCovered))
        case .covered(let work):
            fields.write("work", work)
        case .coverage(let percent):
            fields.write("percent", decimal: UInt64(percent))
        case .best(let progress):
            fields.write("best", progress.best)
        case .restored(let restored):
            fields.write("state", restored.isTyping ? "running" : "stopped")
        case .started, .stopped, .cleared, .deleted, .reloaded, .typed:
            return
        }
    }
}
