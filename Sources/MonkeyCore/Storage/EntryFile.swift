/// The format of a session's entries file: an 8-byte header and the epoch
/// of the entries it holds (a little-endian u64; see `Session.epoch`), then
/// one checksummed record per entry, appended in typing order. Files of
/// format version 1 (the first release) have no epoch: their entries are
/// of epoch 0.
///
/// A record is `length` (u32), `crc` (u32, CRC-32C of the length bytes and
/// the payload), then the payload: `id` (u64), `number` (u64), `flags` (u8,
/// bit 0 = hit) and the text in UTF-8. All integers are little-endian. The
/// file holds one epoch: after a CLEAR the next fold starts it afresh.
public enum EntryFile {
    /// "MKYENT", a zero and the format version.
    public static let header: [UInt8] = [0x4D, 0x4B, 0x59, 0x45, 0x4E, 0x54, 0x00, 0x02]
    public static let headerVersion1: [UInt8] = [0x4D, 0x4B, 0x59, 0x45, 0x4E, 0x54, 0x00, 0x01]
    /// The header and the epoch.
    public static let preambleLength = 16

    /// The start of a file holding entries of `epoch`.
    public static func preamble(epoch: UInt64) -> [UInt8] {
        var output = header
        output.appendFixed64(epoch)
        return output
    }
    static let recordHeaderLength = 8
    static let fixedPayloadLength = 17
    /// No text is longer than 1,000,000 monkeys of 4-byte characters; a
    /// longer length field is damage, not a record.
    public static let maximumPayloadLength = fixedPayloadLength + 4_000_000

    /// Appends the record of one entry.
    public static func appendRecord(_ entry: Entry, to output: inout [UInt8]) {
        entry.text.withUTF8Bytes { text in
            appendRecord(
                id: entry.id, number: entry.number, isHit: entry.isHit, text: UnsafeRawBufferPointer(text), to: &output)
        }
    }

    /// Appends the record of an entry whose text is the UTF-8 bytes `text`.
    public static func appendRecord(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeRawBufferPointer, to output: inout [UInt8]
    ) {
        // Written in scratch room and copied once: growing the array by
        // zeros to fill in place took a fifth of a fold of the journal.
        withUnsafeTemporaryAllocation(byteCount: recordLength(textLength: text.count), alignment: 8) { record in
            writeRecord(
                id: id, number: number, isHit: isHit, text: text.assumingMemoryBound(to: UInt8.self), into: record)
            output.append(contentsOf: UnsafeRawBufferPointer(record))
        }
    }

    /// Writes the record of an entry whose text is the UTF-8 bytes `text`
    /// at `destination`, which has room for `recordLength(textLength:)`
    /// bytes: for a writer that keeps its records in memory of its own.
    public static func writeRecord(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeRawBufferPointer, at destination: UnsafeMutableRawPointer
    ) {
        writeRecord(
            id: id, number: number, isHit: isHit, text: text.assumingMemoryBound(to: UInt8.self),
            into: UnsafeMutableRawBufferPointer(start: destination, count: recordLength(textLength: text.count)))
    }

    /// The length of the record of an entry whose text is `textLength` bytes of UTF-8.
    public static func recordLength(textLength: Int) -> Int {
        recordHeaderLength + fixedPayloadLength + textLength
    }

    /// Writes the record of an entry into `record`, which is exactly
    /// `recordLength(textLength: text.count)` bytes.
    static func writeRecord(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeBufferPointer<UInt8>,
        into record: UnsafeMutableRawBufferPointer
    ) {
        let textStart = recordHeaderLength + fixedPayloadLength
        record.storeBytes(of: id.littleEndian, toByteOffset: 8, as: UInt64.self)
        record.storeBytes(of: number.littleEndian, toByteOffset: 16, as: UInt64.self)
        record[24] = isHit ? 1 : 0
        UnsafeMutableRawBufferPointer(rebasing: record[textStart...]).copyMemory(from: UnsafeRawBufferPointer(text))
        SealedRecord.seal(record)
    }

    /// A whole file holding `entries` of `epoch`.
    public static func encode<Entries: Collection<Entry>>(_ entries: Entries, epoch: UInt64) -> [UInt8] {
        encode(entries, after: preamble(epoch: epoch))
    }

    /// The records of `entries`, without a preamble, to append to a file.
    public static func records<Entries: Collection<Entry>>(_ entries: Entries) -> [UInt8] {
        encode(entries, after: [])
    }

    /// `start`, then the records of `entries`: sized first and written in
    /// place. Grown record by record, a file of megabytes (a flat-out
    /// session's retained log, at every sync) was copied at each doubling
    /// and faulted in fresh pages each time, on the storage thread.
    private static func encode<Entries: Collection<Entry>>(_ entries: Entries, after start: [UInt8]) -> [UInt8] {
        let size = entries.reduce(start.count) { $0 + recordLength(textLength: $1.text.utf8.count) }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            let output = UnsafeMutableRawBufferPointer(buffer)
            start.withUnsafeBytes { output.copyMemory(from: $0) }
            var offset = start.count
            for entry in entries {
                entry.text.withUTF8Bytes { text in
                    let end = offset + recordLength(textLength: text.count)
                    precondition(end <= size, "a text's UTF-8 is as long as its count said")
                    writeRecord(
                        id: entry.id, number: entry.number, isHit: entry.isHit, text: text,
                        into: UnsafeMutableRawBufferPointer(rebasing: output[offset..<end]))
                    offset = end
                }
            }
            count = offset
        }
    }
}

/// What reading an entries file found: its good records, and where and why
/// it stopped if it did not end cleanly.
public struct EntryFileContents: Sendable, Equatable {
    /// The entries kept (see `EntryFile.decode`), oldest first.
    public var entries: [Entry] = []
    /// Good records in the file, kept or not.
    public var recordCount = 0
    /// Bytes from the start of the file that hold the header and good records;
    /// the file is cut here.
    public var validLength = 0
    /// The epoch of its entries (0 for a file of format version 1).
    public var epoch: UInt64 = 0
    /// Bytes before the first record: the header, and the epoch from version 2 on.
    public var preambleLength = EntryFile.preambleLength
    /// Why the rest of the file was not read, if there is a rest.
    public var damage: Damage?

    public enum Damage: Error, Sendable, Equatable, CustomStringConvertible {
        case badHeader
        case truncatedRecord(offset: Int)
        case badLength(offset: Int)
        case checksumMismatch(offset: Int)
        case outOfOrder(offset: Int)

        public var description: String {
            switch self {
            case .badHeader: "the file does not start with the entries header"
            case .truncatedRecord(let offset): "a record at byte \(offset) is incomplete (a torn write)"
            case .badLength(let offset): "the record at byte \(offset) has an impossible length"
            case .checksumMismatch(let offset): "the record at byte \(offset) does not match its checksum"
            case .outOfOrder(let offset): "the record at byte \(offset) does not follow the one before it"
            }
        }
    }
}

extension EntryFileContents.Damage {
    /// Whether `bytes` start with `header` (an entries file's or the
    /// journal's); if not, `damage` says what is wrong, and stays nil for
    /// an empty file.
    static func checkHeader(_ header: [UInt8], of bytes: UnsafeRawBufferPointer, damage: inout Self?) -> Bool {
        if bytes.count >= header.count && header.indices.allSatisfy({ bytes[$0] == header[$0] }) { return true }
        if bytes.count > 0 && !(bytes.count < header.count && zip(bytes, header).allSatisfy(==)) {
            damage = .badHeader
        } else if bytes.count > 0 {
            // A file shorter than its header was torn while being created: nothing to lose.
            damage = .truncatedRecord(offset: 0)
        }
        return false
    }
}

extension EntryFile {
    /// Reads an entries file, stopping at the first record that is torn,
    /// corrupt or out of order (ids and numbers must increase). Keeps the
    /// last `keepingLast` entries, and also every entry whose id is at least
    /// `keepingFromID` (those typed after the state file was written).
    public static func decode(_ bytes: UnsafeRawBufferPointer, keepingLast: Int, keepingFromID: UInt64 = .max)
        -> EntryFileContents
    {
        var contents = EntryFileContents()
        let isVersion1 = bytes.count >= header.count && bytes[header.count - 1] == headerVersion1.last
        guard
            EntryFileContents.Damage.checkHeader(
                isVersion1 ? headerVersion1 : header, of: bytes, damage: &contents.damage)
        else { return contents }
        if isVersion1 {
            contents.preambleLength = headerVersion1.count
        } else {
            guard bytes.count >= preambleLength else {
                contents.damage = .truncatedRecord(offset: header.count)
                return contents
            }
            contents.epoch = integer(UInt64.self, bytes, at: header.count)
        }
        var offset = contents.preambleLength
        var offsets: [Int] = []
        var lastID: UInt64 = 0
        var lastNumber: UInt64 = 0
        while offset < bytes.count {
            guard bytes.count - offset >= recordHeaderLength + fixedPayloadLength else {
                contents.damage = .truncatedRecord(offset: offset)
                break
            }
            let length = Int(integer(UInt32.self, bytes, at: offset))
            guard length >= fixedPayloadLength && length <= maximumPayloadLength else {
                contents.damage = .badLength(offset: offset)
                break
            }
            guard bytes.count - offset - recordHeaderLength >= length else {
                contents.damage = .truncatedRecord(offset: offset)
                break
            }
            let payloadStart = offset + recordHeaderLength
            guard SealedRecord.isIntact(bytes, at: offset, bodyLength: length) else {
                contents.damage = .checksumMismatch(offset: offset)
                break
            }
            let id = integer(UInt64.self, bytes, at: payloadStart)
            let number = integer(UInt64.self, bytes, at: payloadStart + 8)
            guard id > lastID && number > lastNumber && bytes[payloadStart + 16] <= 1 else {
                contents.damage = .outOfOrder(offset: offset)
                break
            }
            lastID = id
            lastNumber = number
            offsets.append(offset)
            offset = payloadStart + length
        }
        contents.recordCount = offsets.count
        contents.validLength = contents.damage == nil ? bytes.count : offset
        var first = max(0, offsets.count - keepingLast)
        while first > 0 && integer(UInt64.self, bytes, at: offsets[first - 1] + recordHeaderLength) >= keepingFromID {
            first -= 1
        }
        contents.entries.reserveCapacity(offsets.count - first)
        for recordOffset in offsets[first...] {
            let length = Int(integer(UInt32.self, bytes, at: recordOffset))
            let payloadStart = recordOffset + recordHeaderLength
            let text = String(
                decoding: UnsafeRawBufferPointer(
                    rebasing: bytes[(payloadStart + fixedPayloadLength)..<(payloadStart + length)]),
                as: UTF8.self)
            contents.entries.append(
                Entry(
                    id: integer(UInt64.self, bytes, at: payloadStart),
                    number: integer(UInt64.self, bytes, at: payloadStart + 8), text: text,
                    isHit: bytes[payloadStart + 16] == 1))
        }
        return contents
    }

    public static func decode(_ bytes: [UInt8], keepingLast: Int, keepingFromID: UInt64 = .max) -> EntryFileContents {
        bytes.withUnsafeBytes { decode($0, keepingLast: keepingLast, keepingFromID: keepingFromID) }
    }

    static func integer<Value: FixedWidthInteger>(_ type: Value.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int)
        -> Value
    {
        Value(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Value.self))
    }
}
