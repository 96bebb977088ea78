/// One event of the EVENTS stream: what happened to a session, with an id
/// that increases and is never given twice (across restarts and crashes
/// too) and the wall-clock time it happened. What the event log keeps and
/// the events file holds; its fields are rendered from the `Event` it
/// records when it is written (`writeFields`).
///
/// Written as `event id=N time=2026-11-30T22:37:13.123Z kind=KIND session=NAME ...`.
public struct EventRecord: Sendable {
    /// The stream's names for what happened (the journal has its own,
    /// `Event.Kind`): a START of a new session is `created`, then `started`.
    public enum Kind: String, Sendable, CaseIterable {
        // New kinds go last: the events file stores a kind's index.
        case created, started, stopped, updated, cleared, deleted, hit, best, restored, covered, coverage
    }

    public let id: UInt64
    /// Milliseconds since the Unix epoch.
    public let time: UInt64
    public let kind: Kind
    public let session: SessionName
    public let content: Content

    /// What the record's fields are rendered from.
    public enum Content: Sendable {
        /// An event of this run: what happened (not who asked, which the
        /// journal has; a record keeps only what it renders, since the log
        /// keeps thousands).
        case event(Event.Payload)
        /// An event of an earlier run, read back from the events file:
        /// its fields as they were written.
        case written([Field])
    }

    /// A field as the events file holds it.
    public struct Field: Sendable, Equatable {
        public let key: String
        public let value: String

        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public init(id: UInt64, time: UInt64, kind: Kind, session: SessionName, content: Content) {
        self.id = id
        self.time = time
        self.kind = kind
        self.session = session
        self.content = content
    }

    /// The record's own fields, after `id`, `time`, `kind` and `session`:
    /// the settings of `started`, what `updated` changed, the entry of a
    /// `hit`, the text of `best`, the state of `restored`.
    public func writeFields<Fields: FieldWriter>(to fields: inout Fields) {
        switch content {
        case .event(let payload):
            payload.writeRecordFields(of: kind, to: &fields)
        case .written(let written):
            for index in written.indices { fields.write(key: written[index].key, written[index].value) }
        }
    }

    /// The length of best progress a `best` record of this run tells (WAIT
    /// `for=best=N` reads it); nil for any other.
    public var bestLength: Int? {
        guard kind == .best, case .event(.best(let progress)) = content else {
            return nil
        }
        return progress.length
    }

    /// The whole percent a `coverage` record of this run tells (WAIT
    /// `for=coverage=P` reads it); nil for any other.
    public var percent: Int? {
        guard kind == .coverage, case .event(.coverage(let percent)) = content else { return nil }
        return percent
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
        LineFields.appending(to: &output) { writeFields(to: &$0) }
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

extension EventRecord: Equatable {
    /// Records are equal when they say the same: a record of this run
    /// equals the same record read back from the events file.
    public static func == (lhs: EventRecord, rhs: EventRecord) -> Bool {
        guard lhs.id == rhs.id, lhs.time == rhs.time, lhs.kind == rhs.kind, lhs.session == rhs.session else {
            return false
        }
        var left = RecordFields()
        var right = RecordFields()
        lhs.writeFields(to: &left)
        rhs.writeFields(to: &right)
        return left.fields.elementsEqual(right.fields) { $0.key == $1.key && $0.value == $1.value }
    }
}
