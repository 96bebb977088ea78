/// The format of the entries journal: what every session typed, in the
/// order it was synced, so that a sync of thousands of sessions is one
/// append and one `fdatasync` rather than one per session file. The
/// journal is folded into the sessions' entries files when it grows past
/// `journal_size`, at start-up and at a clean shutdown.
///
/// After an 8-byte header, a record is `length` (u32, the bytes after the
/// checksum), `crc` (u32, CRC-32C of the length bytes and the rest), `kind`
/// (u8), the session name's length (u8) and the name in UTF-8, then for an
/// entry the entry's record exactly as in its entries file. A fresh start
/// (CLEAR, DELETE) tells that the session's earlier records no longer
/// belong to it. All integers are little-endian.
public enum JournalFile {
    /// "MKYJNL", a zero and the format version.
    public static let header: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x01]
    static let recordHeaderLength = 8

    enum Kind: UInt8 {
        case entry = 1
        case freshStart = 2
    }

    /// Appends the record of an entry `session` typed: the entry's record
    /// from its entries file, framed with the session's name.
    public static func appendEntry(_ entry: Entry, session: SessionName, to output: inout RecordBuffer) {
        // Names of up to 15 bytes and short texts are stored in the strings
        // themselves: no memory of their own to reach at every entry.
        let (id, number, isHit) = (entry.id, entry.number, entry.isHit)
        session.text.withUTF8Bytes { name in
            entry.text.withUTF8Bytes { text in
                let entryStart = recordHeaderLength + 2 + name.count
                output.append(length: entryStart + EntryFile.recordLength(textLength: text.count)) { record in
                    record[recordHeaderLength] = Kind.entry.rawValue
                    record[recordHeaderLength + 1] = UInt8(name.count)
                    UnsafeMutableRawBufferPointer(rebasing: record[(recordHeaderLength + 2)..<entryStart])
                        .copyMemory(from: UnsafeRawBufferPointer(name))
                    EntryFile.writeRecord(
                        id: id, number: number, isHit: isHit, text: text,
                        into: UnsafeMutableRawBufferPointer(rebasing: record[entryStart...]))
                    seal(record)
                }
            }
        }
    }

    /// Appends a fresh start of `session`: its earlier records are dropped.
    public static func appendFreshStart(session: SessionName, to output: inout [UInt8]) {
        appendRecord(
            .freshStart, session: Array(session.text.utf8), payload: UnsafeRawBufferPointer(start: nil, count: 0),
            to: &output)
    }

    private static func appendRecord(
        _ kind: Kind, session: [UInt8], payload: UnsafeRawBufferPointer, to output: inout [UInt8]
    ) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: recordHeaderLength))
        output.append(kind.rawValue)
        output.append(UInt8(session.count))
        output.append(contentsOf: session)
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { seal(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Fills in the length and checksum of `record`, a whole journal record.
    private static func seal(_ record: UnsafeMutableRawBufferPointer) {
        record.storeBytes(of: UInt32(record.count - recordHeaderLength).littleEndian, as: UInt32.self)
        EntryFile.storeChecksum(in: record)
    }

    /// Journal records (without the journal's header, as written by this
    /// type) without those of `session`.
    public static func removingRecords(of session: SessionName, from records: [UInt8]) -> [UInt8] {
        let session = Array(session.text.utf8)
        var kept: [UInt8] = []
        kept.reserveCapacity(records.count)
        records.withUnsafeBytes { bytes in
            var offset = 0
            while bytes.count - offset >= recordHeaderLength + 2 {
                let end = offset + recordHeaderLength + Int(EntryFile.integer(UInt32.self, bytes, at: offset))
                let nameStart = offset + recordHeaderLength + 2
                let name = bytes[nameStart..<(nameStart + Int(bytes[offset + recordHeaderLength + 1]))]
                if !name.elementsEqual(session) { kept.append(contentsOf: bytes[offset..<end]) }
                offset = end
            }
        }
        return kept
    }
}

/// What reading a journal found: for each session, its entry records since
/// its last fresh start, and where and why reading stopped if the journal
/// did not end cleanly.
public struct JournalContents: Sendable, Equatable {
    /// Entry records by session, in journal order, laid out as the body of
    /// an entries file (decode them with `EntryFile.header` in front).
    public var records: [SessionName: [UInt8]] = [:]
    /// Bytes from the start that hold the header and good records.
    public var validLength = 0
    /// Why the rest was not read, if there is a rest.
    public var damage: EntryFileContents.Damage?

    public init() {}
}

extension JournalFile {
    /// Reads a journal, stopping at the first record that is torn or corrupt.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> JournalContents {
        var contents = JournalContents()
        guard EntryFileContents.Damage.checkHeader(header, of: bytes, damage: &contents.damage) else { return contents }
        var offset = header.count
        while offset < bytes.count {
            guard bytes.count - offset >= recordHeaderLength + 2 else {
                contents.damage = .truncatedRecord(offset: offset)
                break
            }
            let length = Int(EntryFile.integer(UInt32.self, bytes, at: offset))
            let bodyStart = offset + recordHeaderLength
            guard length >= 2, length <= 2 + 255 + EntryFile.maximumPayloadLength + EntryFile.recordHeaderLength
            else {
                contents.damage = .badLength(offset: offset)
                break
            }
            guard bytes.count - bodyStart >= length else {
                contents.damage = .truncatedRecord(offset: offset)
                break
            }
            let stored = EntryFile.integer(UInt32.self, bytes, at: offset + 4)
            let computed = CRC32C.checksum(
                UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<(bodyStart + length)]),
                continuing: CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)])))
            let nameLength = Int(bytes[bodyStart + 1])
            guard stored == computed, let kind = Kind(rawValue: bytes[bodyStart]), 2 + nameLength <= length,
                let name = SessionName(
                    String(
                        decoding: UnsafeRawBufferPointer(
                            rebasing: bytes[(bodyStart + 2)..<(bodyStart + 2 + nameLength)]),
                        as: UTF8.self))
            else {
                contents.damage = .checksumMismatch(offset: offset)
                break
            }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(bodyStart + 2 + nameLength)..<(bodyStart + length)])
            switch kind {
            case .entry: contents.records[name, default: []].append(contentsOf: payload)
            case .freshStart: contents.records[name] = []
            }
            offset = bodyStart + length
        }
        contents.validLength = contents.damage == nil ? bytes.count : offset
        return contents
    }

    public static func decode(_ bytes: [UInt8]) -> JournalContents {
        bytes.withUnsafeBytes { decode($0) }
    }
}
