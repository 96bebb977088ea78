/// The format of the events file: the stream's events (`EventRecord`),
/// appended at each sync and rewritten with the newest `max_events` when it
/// holds twice that many.
///
/// An 8-byte header, then records framed as in the entries journal
/// (`length` u32, `crc` u32, then the body), each body one event: `kind`
/// (u8, 1), then `id`, `time` (milliseconds since the Unix epoch), the
/// event's kind (its index in `EventRecord.Kind`), the session name, the
/// number of fields and each field's key and value (`VarInt`s; texts a
/// `VarInt` length and UTF-8).
public enum EventFile {
    /// "MKYEVT", a zero and the format version.
    public static let header: [UInt8] = [0x4D, 0x4B, 0x59, 0x45, 0x56, 0x54, 0x00, 0x01]
    static let recordHeaderLength = 8
    static let maximumRecordLength = 16 << 20

    /// Appends the event's record, assembled in `scratch` (whatever it
    /// held is dropped): one copy into `output` rather than a dozen small
    /// appends to it, for every event the daemon publishes.
    public static func append(_ event: EventRecord, to output: inout [UInt8], assemblingIn scratch: ByteBuffer) {
        scratch.removeAll()
        var record = scratch
        for _ in 0..<recordHeaderLength { record.append(0) }
        record.append(1)
        VarInt.append(event.id, to: &record)
        VarInt.append(event.time, to: &record)
        VarInt.append(UInt64(EventRecord.Kind.allCases.firstIndex(of: event.kind) ?? 0), to: &record)
        record.appendText(event.session.text)
        // The count comes first: the fields are rendered once to count them.
        var counted = FileFields(record: nil)
        event.writeFields(to: &counted)
        VarInt.append(UInt64(counted.count), to: &record)
        var fields = FileFields(record: record)
        event.writeFields(to: &fields)
        scratch.withMutableBytes { SealedRecord.seal(UnsafeMutableRawBufferPointer($0)) }
        scratch.withBytes { output.append(contentsOf: $0) }
    }

    /// A whole file holding `events`.
    public static func encode<Events: Sequence<EventRecord>>(_ events: Events) -> [UInt8] {
        var output = header
        let scratch = ByteBuffer()
        for event in events { append(event, to: &output, assemblingIn: scratch) }
        return output
    }

    /// Reads an events file, stopping at the first record that is torn or
    /// corrupt, or whose id does not follow the one before it.
    public static func decode(_ bytes: [UInt8]) -> EventFileContents {
        bytes.withUnsafeBytes { raw in
            var contents = EventFileContents()
            guard EntryFileContents.Damage.checkHeader(header, of: raw, damage: &contents.damage) else {
                return contents
            }
            var offset = header.count
            while offset < raw.count {
                switch record(in: raw, at: offset, after: contents.events.last?.id ?? 0) {
                case .success(let (event, end)):
                    contents.events.append(event)
                    offset = end
                case .failure(let damage):
                    contents.damage = damage
                    contents.validLength = offset
                    return contents
                }
            }
            contents.validLength = raw.count
            return contents
        }
    }

    private static func record(in bytes: UnsafeRawBufferPointer, at offset: Int, after lastID: UInt64)
        -> Result<(EventRecord, Int), EntryFileContents.Damage>
    {
        SealedRecord.body(in: bytes, at: offset, maximumLength: maximumRecordLength).flatMap { sealed in
            guard let event = event(sealed.body) else { return .failure(.checksumMismatch(offset: offset)) }
            guard event.id > lastID else { return .failure(.outOfOrder(offset: offset)) }
            return .success((event, sealed.end))
        }
    }

    private static func event(_ body: UnsafeRawBufferPointer) -> EventRecord? {
        guard body[0] == 1 else { return nil }
        var reader = FieldReader(body, at: 1)
        guard let id = reader.integer(), let time = reader.integer(), let kindIndex = reader.integer(),
            kindIndex < UInt64(EventRecord.Kind.allCases.count), let name = reader.text().flatMap(SessionName.init),
            let count = reader.integer(), count <= UInt64(body.count)
        else { return nil }
        var fields: [EventRecord.Field] = []
        for _ in 0..<count {
            guard let key = reader.text(), let value = reader.text() else { return nil }
            fields.append(EventRecord.Field(key, value))
        }
        guard reader.isAtEnd else { return nil }
        return EventRecord(
            id: id, time: time, kind: EventRecord.Kind.allCases[Int(kindIndex)], session: name,
            content: .written(fields))
    }
}

/// A record's fields as the events file writes them: a key and a value,
/// each a text. Rendered twice: first only counted (the count comes
/// first), then into `record`.
private struct FileFields: FieldWriter {
    var count = 0
    let record: ByteBuffer?

    init(record: ByteBuffer?) {
        self.record = record
    }

    mutating func write(_ key: StaticString, _ value: String) {
        count += 1
        guard var record else { return }
        key.withUTF8Buffer { key in
            VarInt.append(UInt64(key.count), to: &record)
            record.appendBytes(key)
        }
        record.appendText(value)
    }

    mutating func write(_ key: StaticString, decimal value: UInt64) {
        write(key, String(value))
    }

    mutating func write(key: String, _ value: String) {
        count += 1
        guard var record else { return }
        record.appendText(key)
        record.appendText(value)
    }
}

/// What reading an events file found.
public struct EventFileContents: Sendable, Equatable {
    public var events: [EventRecord] = []
    public var validLength = 0
    public var damage: EntryFileContents.Damage?
}
