/// The format of a session's entries file: an 8-byte header and the epoch
/// of the entries it holds (a little-endian u64; see `Session.epoch`), then
/// sealed records (`SealedRecord`: `length`, u32, and `crc`, u32, CRC-32C
/// of the length bytes and the body), appended in typing order. The file
/// holds one epoch: after a CLEAR the next fold starts it afresh.
///
/// From format version 3 on, a record's body is a run of entries, each as
/// the journal holds it after its group's head (`JournalFile`, `JournalGroup`):
/// `id`, `number` (`VarInt`s), `flags` (u8, bit 0 = hit), the text's length
/// in bytes (a `VarInt`) and the text in UTF-8. One checksum covers the
/// run, so that a fold copies each entry's bytes from the journal as they
/// lie, and an entry of five letters takes about 13 bytes instead of 30. A
/// run is taken whole or not at all.
///
/// Versions 1 and 2 (read, then written afresh in version 3 at start-up)
/// hold one record per entry: `id` (u64), `number` (u64), `flags` (u8) and
/// the text; version 1 has no epoch, its entries are of epoch 0. All
/// fixed-size integers are little-endian.
public enum EntryFile {
    /// "MKYENT", a zero and the format version.
    public static let header: [UInt8] = [0x4D, 0x4B, 0x59, 0x45, 0x4E, 0x54, 0x00, 0x03]
    public static let headerVersion2: [UInt8] = [0x4D, 0x4B, 0x59, 0x45, 0x4E, 0x54, 0x00, 0x02]
    public static let headerVersion1: [UInt8] = [0x4D, 0x4B, 0x59, 0x45, 0x4E, 0x54, 0x00, 0x01]
    /// The header and the epoch.
    public static let preambleLength = 16

    /// The start of a file holding entries of `epoch`.
    public static func preamble(epoch: UInt64) -> [UInt8] {
        var output = header
        output.appendFixed64(epoch)
        return output
    }

    /// The length and the checksum before a run.
    public static let runHeaderLength = SealedRecord.headerLength
    /// A run is ended once its body holds this many bytes, so that damage
    /// costs at most a run and a run's checksum stays quick to compute.
    public static let runLimit = 64 << 10
    /// No text is longer than 1,000,000 monkeys of 4-byte characters.
    public static let maximumTextLength = 4_000_000
    /// The longest entry in a run: two 10-byte `VarInt`s, flags, a 5-byte
    /// `VarInt` length and the longest text.
    static let maximumEntryLength = 10 + 10 + 1 + 5 + maximumTextLength
    /// No run is longer; a longer length field is damage, not a record.
    static let maximumRunLength = runLimit + maximumEntryLength

    /// The bytes of one entry in a run.
    static func entryLength(id: UInt64, number: UInt64, textLength: Int) -> Int {
        VarInt.length(of: id) + VarInt.length(of: number) + 1 + VarInt.length(of: UInt64(textLength)) + textLength
    }

    /// Writes one entry at `offset` of `output`, returning the offset past it.
    static func writeEntry(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer, at offset: Int
    ) -> Int {
        var offset = VarInt.store(id, in: output, at: offset)
        offset = VarInt.store(number, in: output, at: offset)
        output[offset] = isHit ? 1 : 0
        offset = VarInt.store(UInt64(text.count), in: output, at: offset + 1)
        UnsafeMutableRawBufferPointer(rebasing: output[offset..<(offset + text.count)]).copyMemory(from: text)
        return offset + text.count
    }

    /// Fills in the length and the checksum of `run`, a run's header and
    /// its entries: for a writer that puts entries in runs in memory of
    /// its own (a fold).
    public static func seal(run: UnsafeMutableRawBufferPointer) {
        SealedRecord.seal(run)
    }

    /// Appends a run of the one entry.
    public static func appendRecord(_ entry: Entry, to output: inout [UInt8]) {
        output += records(CollectionOfOne(entry))
    }

    /// A whole file holding `entries` of `epoch`.
    public static func encode<Entries: Collection<Entry>>(_ entries: Entries, epoch: UInt64) -> [UInt8] {
        encode(entries, after: preamble(epoch: epoch))
    }

    /// The runs of `entries`, without a preamble, to append to a file.
    public static func records<Entries: Collection<Entry>>(_ entries: Entries) -> [UInt8] {
        encode(entries, after: [])
    }

    /// `start`, then the runs of `entries`: sized first and written in
    /// place. Grown entry by entry, a file of megabytes (a flat-out
    /// session's retained log, at every sync) was copied at each doubling
    /// and faulted in fresh pages each time, on the storage thread.
    private static func encode<Entries: Collection<Entry>>(_ entries: Entries, after start: [UInt8]) -> [UInt8] {
        var size = start.count
        var runBody = 0
        for entry in entries {
            if runBody == 0 || runBody >= runLimit {
                size += runHeaderLength
                runBody = 0
            }
            let length = entryLength(id: entry.id, number: entry.number, textLength: entry.text.utf8.count)
            size += length
            runBody += length
        }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            let output = UnsafeMutableRawBufferPointer(buffer)
            start.withUnsafeBytes { output.copyMemory(from: $0) }
            var offset = start.count
            var runStart: Int?
            for entry in entries {
                if let open = runStart, offset - open - runHeaderLength >= runLimit {
                    seal(run: UnsafeMutableRawBufferPointer(rebasing: output[open..<offset]))
                    runStart = nil
                }
                if runStart == nil {
                    runStart = offset
                    offset += runHeaderLength
                }
                entry.text.withUTF8Bytes { text in
                    precondition(
                        offset + entryLength(id: entry.id, number: entry.number, textLength: text.count) <= size,
                        "a text's UTF-8 is as long as its count said")
                    offset = writeEntry(
                        id: entry.id, number: entry.number, isHit: entry.isHit, text: UnsafeRawBufferPointer(text),
                        into: output, at: offset)
                }
            }
            if let open = runStart { seal(run: UnsafeMutableRawBufferPointer(rebasing: output[open..<offset])) }
            count = offset
        }
    }
}

/// What reading an entries file found: its good records, and where and why
/// it stopped if it did not end cleanly.
public struct EntryFileContents: Sendable, Equatable {
    /// The entries kept (see `EntryFile.decode`), oldest first.
    public var entries: [Entry] = []
    /// Entries of good records (runs, or one each in versions 1 and 2) in the file, kept or not.
    public var recordCount = 0
    /// Bytes from the start of the file that hold the header and good records;
    /// the file is cut here.
    public var validLength = 0
    /// The epoch of its entries (0 for a file of format version 1).
    public var epoch: UInt64 = 0
    /// Bytes before the first record: the header, and the epoch from version 2 on.
    public var preambleLength = EntryFile.preambleLength
    /// The format version the file was written in (see `EntryFile`).
    public var version: UInt8 = 3
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
    /// Reads an entries file of any format version, stopping at the first
    /// record that is torn, corrupt or out of order (ids and numbers must
    /// increase). Keeps the last `keepingLast` entries, and also every
    /// entry whose id is at least `keepingFromID` (those typed after the
    /// state file was written).
    public static func decode(_ bytes: UnsafeRawBufferPointer, keepingLast: Int, keepingFromID: UInt64 = .max)
        -> EntryFileContents
    {
        var contents = EntryFileContents()
        let versionByte = bytes.count >= header.count ? bytes[header.count - 1] : header[header.count - 1]
        let expected = [headerVersion1, headerVersion2, header].first { $0.last == versionByte } ?? header
        guard EntryFileContents.Damage.checkHeader(expected, of: bytes, damage: &contents.damage) else {
            return contents
        }
        contents.version = versionByte
        if versionByte == 1 {
            contents.preambleLength = headerVersion1.count
        } else {
            guard bytes.count >= preambleLength else {
                contents.damage = .truncatedRecord(offset: header.count)
                return contents
            }
            contents.epoch = integer(UInt64.self, bytes, at: header.count)
        }
        // Where each good entry starts, in order.
        let starts =
            versionByte >= 3
            ? readRuns(
                bytes, from: contents.preambleLength, damage: &contents.damage, validLength: &contents.validLength)
            : readVersion2Records(
                bytes, from: contents.preambleLength, damage: &contents.damage, validLength: &contents.validLength)
        contents.recordCount = starts.count
        var first = max(0, starts.count - keepingLast)
        if versionByte >= 3 {
            while first > 0 && runEntry(bytes, at: starts[first - 1]).id >= keepingFromID { first -= 1 }
            contents.entries.reserveCapacity(starts.count - first)
            for start in starts[first...] { contents.entries.append(runEntry(bytes, at: start)) }
        } else {
            while first > 0 && version2Entry(bytes, at: starts[first - 1]).id >= keepingFromID { first -= 1 }
            contents.entries.reserveCapacity(starts.count - first)
            for start in starts[first...] { contents.entries.append(version2Entry(bytes, at: start)) }
        }
        return contents
    }

    public static func decode(_ bytes: [UInt8], keepingLast: Int, keepingFromID: UInt64 = .max) -> EntryFileContents {
        bytes.withUnsafeBytes { decode($0, keepingLast: keepingLast, keepingFromID: keepingFromID) }
    }

    /// The good runs from `offset` on: where each of their entries starts.
    /// A run is taken whole or not at all.
    private static func readRuns(
        _ bytes: UnsafeRawBufferPointer, from offset: Int, damage: inout EntryFileContents.Damage?,
        validLength: inout Int
    ) -> [Int] {
        var starts: [Int] = []
        var offset = offset
        var lastID: UInt64 = 0
        var lastNumber: UInt64 = 0
        runs: while offset < bytes.count {
            let body: UnsafeRawBufferPointer
            let end: Int
            switch SealedRecord.body(in: bytes, at: offset, maximumLength: maximumRunLength) {
            case .failure(let found):
                damage = found
                break runs
            case .success(let record): (body, end) = record
            }
            let bodyStart = end - body.count
            let startsBefore = starts.count
            var position = 0
            while position < body.count {
                guard let entry = RunEntry(body, at: position) else {
                    damage = .checksumMismatch(offset: offset)
                    break
                }
                guard entry.id > lastID && entry.number > lastNumber else {
                    damage = .outOfOrder(offset: offset)
                    break
                }
                starts.append(bodyStart + position)
                (lastID, lastNumber) = (entry.id, entry.number)
                position = entry.end
            }
            if damage != nil {
                starts.removeSubrange(startsBefore...)
                break
            }
            offset = end
        }
        validLength = damage == nil ? bytes.count : offset
        return starts
    }

    /// The entry of a good run that starts at `offset` of `bytes`.
    private static func runEntry(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Entry {
        guard let entry = RunEntry(bytes, at: offset) else { preconditionFailure("a good run's entry reads again") }
        return Entry(
            id: entry.id, number: entry.number,
            text: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[entry.text]), as: UTF8.self),
            isHit: entry.isHit)
    }

    /// One entry of a run (or of the journal, after its group's head), read in place.
    struct RunEntry {
        let id: UInt64
        let number: UInt64
        let isHit: Bool
        let text: Range<Int>
        /// The offset just past it.
        let end: Int

        /// Reads the entry at `offset`; nil if it does not fit in `bytes` or is malformed.
        init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            var position = offset
            guard let id = VarInt.load(from: bytes, at: &position),
                let number = VarInt.load(from: bytes, at: &position),
                position < bytes.count, bytes[position] <= 1
            else { return nil }
            isHit = bytes[position] == 1
            position += 1
            guard let length = VarInt.load(from: bytes, at: &position), length <= UInt64(bytes.count - position) else {
                return nil
            }
            self.id = id
            self.number = number
            text = position..<(position + Int(length))
            end = text.upperBound
        }
    }

    // MARK: Versions 1 and 2: a record per entry

    static let recordHeaderLength = 8
    static let fixedPayloadLength = 17
    static let maximumPayloadLength = fixedPayloadLength + maximumTextLength

    /// The length of a version 2 record of an entry whose text is `textLength` bytes of UTF-8.
    static func recordLength(textLength: Int) -> Int {
        recordHeaderLength + fixedPayloadLength + textLength
    }

    /// The good records of a file of version 1 or 2 from `offset` on: where each starts.
    private static func readVersion2Records(
        _ bytes: UnsafeRawBufferPointer, from offset: Int, damage: inout EntryFileContents.Damage?,
        validLength: inout Int
    ) -> [Int] {
        var offset = offset
        var offsets: [Int] = []
        var lastID: UInt64 = 0
        var lastNumber: UInt64 = 0
        while offset < bytes.count {
            guard bytes.count - offset >= recordHeaderLength + fixedPayloadLength else {
                damage = .truncatedRecord(offset: offset)
                break
            }
            let length = Int(integer(UInt32.self, bytes, at: offset))
            guard length >= fixedPayloadLength && length <= maximumPayloadLength else {
                damage = .badLength(offset: offset)
                break
            }
            guard bytes.count - offset - recordHeaderLength >= length else {
                damage = .truncatedRecord(offset: offset)
                break
            }
            let payloadStart = offset + recordHeaderLength
            guard SealedRecord.isIntact(bytes, at: offset, bodyLength: length) else {
                damage = .checksumMismatch(offset: offset)
                break
            }
            let id = integer(UInt64.self, bytes, at: payloadStart)
            let number = integer(UInt64.self, bytes, at: payloadStart + 8)
            guard id > lastID && number > lastNumber && bytes[payloadStart + 16] <= 1 else {
                damage = .outOfOrder(offset: offset)
                break
            }
            lastID = id
            lastNumber = number
            offsets.append(offset)
            offset = payloadStart + length
        }
        validLength = damage == nil ? bytes.count : offset
        return offsets
    }

    /// The entry of the good version 2 record at `offset`.
    private static func version2Entry(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Entry {
        let length = Int(integer(UInt32.self, bytes, at: offset))
        let payloadStart = offset + recordHeaderLength
        let text = String(
            decoding: UnsafeRawBufferPointer(
                rebasing: bytes[(payloadStart + fixedPayloadLength)..<(payloadStart + length)]),
            as: UTF8.self)
        return Entry(
            id: integer(UInt64.self, bytes, at: payloadStart),
            number: integer(UInt64.self, bytes, at: payloadStart + 8),
            text: text, isHit: bytes[payloadStart + 16] == 1)
    }

    static func integer<Value: FixedWidthInteger>(_ type: Value.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int)
        -> Value
    {
        Value(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Value.self))
    }
}
