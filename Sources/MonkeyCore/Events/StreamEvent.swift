/// One event of the EVENTS stream: what happened to a session, with an id
/// that increases and is never given twice (across restarts and crashes
/// too) and the wall-clock time it happened.
///
/// Written as `event id=N time=2026-11-30T22:37:13.123Z kind=KIND session=NAME ...`.
public struct StreamEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case created, started, stopped, updated, cleared, deleted, hit, best, restored
    }

    public let id: UInt64
    /// Milliseconds since the Unix epoch.
    public let time: UInt64
    public let kind: Kind
    public let session: SessionName
    /// The kind's own fields, in order: `entry_id`, `number`, `text` of a
    /// hit; `best` of best progress; the settings that changed...
    public let fields: [Event.Field]

    public init(id: UInt64, time: UInt64, kind: Kind, session: SessionName, fields: [Event.Field]) {
        self.id = id
        self.time = time
        self.kind = kind
        self.session = session
        self.fields = fields
    }

    /// The event's data line.
    public func append(to output: inout [UInt8]) {
        output.appendLiteral("event id=")
        ResponseEncoder.appendDecimal(id, to: &output)
        output.appendLiteral(" time=")
        output.append(contentsOf: Self.timestamp(milliseconds: time).utf8)
        output.appendLiteral(" kind=")
        output.appendUTF8(kind.rawValue)
        output.appendLiteral(" session=")
        output.appendUTF8(session.text)
        for index in fields.indices { ResponseEncoder.appendField(fields[index].key, fields[index].value, to: &output) }
        output.append(0x0A)
    }

    /// RFC 3339 in UTC with milliseconds: `2026-11-30T22:37:13.123Z`.
    public static func timestamp(milliseconds: UInt64) -> String {
        let seconds = milliseconds / 1000
        let days = Int64(seconds / 86400)
        let secondOfDay = Int(seconds % 86400)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))T\(digits(Int64(secondOfDay / 3600), 2)):"
            + "\(digits(Int64(secondOfDay / 60 % 60), 2)):\(digits(Int64(secondOfDay % 60), 2))."
            + "\(digits(Int64(milliseconds % 1000), 3))Z"
    }
}

/// An event of the stream before it has an id and a time: what the
/// daemon's journal events say, in the stream's words.
public struct StreamEventDraft: Sendable, Equatable {
    public let kind: StreamEvent.Kind
    public let session: SessionName
    public let fields: [Event.Field]

    public init(kind: StreamEvent.Kind, session: SessionName, fields: [Event.Field]) {
        self.kind = kind
        self.session = session
        self.fields = fields
    }

    /// The stream's events for one journal event: a START of a new session
    /// is `created` then `started`; STOP `stopped`; SET `updated` (with what
    /// changed); CLEAR `cleared`; DELETE `deleted`; a hit `hit` (with the
    /// entry); best progress `best`; a restore `restored`. A reload and a
    /// typed entry are no session's events.
    public static func drafts(for event: Event) -> [StreamEventDraft] {
        var drafts: [StreamEventDraft] = []
        forEachDraft(of: event) { drafts.append($0) }
        return drafts
    }

    /// `drafts(for:)` one at a time, with no array made: every change the
    /// daemon commits comes here.
    public static func forEachDraft(of event: Event, _ body: (StreamEventDraft) -> Void) {
        guard let session = event.session else { return }
        switch event.kind {
        case .start:
            let settings = event.fields.filter {
                ["target", "monkeys", "interval", "alphabet", "seed"].contains($0.key)
            }
            if event.value(of: "created") == "yes" {
                body(StreamEventDraft(kind: .created, session: session, fields: []))
            }
            body(StreamEventDraft(kind: .started, session: session, fields: settings))
        case .stop:
            body(StreamEventDraft(kind: .stopped, session: session, fields: []))
        case .set:
            // The fields as they are, unless there is a warning to leave out: no copy for most changes.
            let hasWarning = event.fields.contains { $0.key == "warning" }
            let fields = hasWarning ? event.fields.filter { $0.key != "warning" } : event.fields
            body(StreamEventDraft(kind: .updated, session: session, fields: fields))
        case .clear:
            body(StreamEventDraft(kind: .cleared, session: session, fields: []))
        case .delete:
            body(StreamEventDraft(kind: .deleted, session: session, fields: []))
        case .hit:
            let entry = [("id", "entry_id"), ("number", "number"), ("text", "text")].compactMap { key, name in
                event.value(of: key).map { Event.Field(name, $0) }
            }
            body(StreamEventDraft(kind: .hit, session: session, fields: entry))
        case .best:
            body(
                StreamEventDraft(
                    kind: .best, session: session,
                    fields: event.value(of: "best").map { [Event.Field("best", $0)] } ?? []))
        case .restore:
            body(
                StreamEventDraft(
                    kind: .restored, session: session,
                    fields: event.value(of: "state").map { [Event.Field("state", $0)] } ?? []))
        case .reload, .typed:
            return
        }
    }
}
