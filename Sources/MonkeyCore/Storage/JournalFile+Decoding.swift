/// A session's entries of one epoch (see `Session.epoch`).
public struct SessionEpoch: Sendable, Hashable, CustomStringConvertible {
    public let name: SessionName
    public let epoch: UInt64

    public init(_ name: SessionName, _ epoch: UInt64) {
        self.name = name
        self.epoch = epoch
    }

    public var description: String { "\(name) (epoch \(epoch))" }
}

/// What reading a journal found: for each session and epoch, its entries
/// (in journals of versions 1 and 2, every entry is of epoch 0, since the
/// session's last fresh start), and where and why reading stopped if the
/// journal did not end cleanly.
public struct JournalContents: Sendable, Equatable {
    /// Entries by session and epoch, in journal order.
    public var entries: [SessionEpoch: [Entry]] = [:]
    /// The format version the journal was written in.
    public var version: UInt8 = JournalFile.version
    /// Bytes from the start that hold the header and good records.
    public var validLength = 0
    /// Why the rest was not read, if there is a rest.
    public var damage: EntryFileContents.Damage?

    public init() {}
}

extension JournalFile {
    /// Reads a journal of any format version, stopping at the first
    /// record that is torn or corrupt.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> JournalContents {
        var contents = JournalContents()
        let versionByte = bytes.count >= header.count ? bytes[header.count - 1] : header[header.count - 1]
        let expected =
            [headerVersion1, headerVersion2, headerVersion3, header].first { $0.last == versionByte } ?? header
        guard EntryFileContents.Damage.checkHeader(expected, of: bytes, damage: &contents.damage) else {
            return contents
        }
        contents.version = versionByte
        var offset = header.count
        while offset < bytes.count {
            guard bytes.count - offset >= recordHeaderLength + 1 else {
                contents.damage = .truncatedRecord(offset: offset)
                break
            }
            let length = Int(EntryFile.integer(UInt32.self, bytes, at: offset))
            let bodyStart = offset + recordHeaderLength
            guard length >= 1, length <= maximumRecordLength else {
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
            // A record is taken whole or not at all.
            guard stored == computed,
                let changes = changes(
                    in: UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<(bodyStart + length)]),
                    version: contents.version)
            else {
                contents.damage = .checksumMismatch(offset: offset)
                break
            }
            for (key, entry) in changes {
                if let entry {
                    contents.entries[key, default: []].append(entry)
                } else {
                    contents.entries[key] = []
                }
            }
            offset = bodyStart + length
        }
        contents.validLength = contents.damage == nil ? bytes.count : offset
        return contents
    }

    public static func decode(_ bytes: [UInt8]) -> JournalContents {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// What one record's body says, in order: an entry a session typed, or
    /// nil for a fresh start; nil if the body is malformed.
    private static func changes(in body: UnsafeRawBufferPointer, version: UInt8) -> [(SessionEpoch, Entry?)]? {
        switch Kind(rawValue: body[0]) {
        case .entries where version >= 4:
            var groups: [CheckedGroup] = []
            guard isWellFormed(entries: body, groups: &groups) else { return nil }
            var changes: [(SessionEpoch, Entry?)] = []
            for checked in groups {
                guard let name = sessionName(checked.head.name) else { return nil }
                let group = checked.item(in: body)
                var offset = 0
                for _ in 0..<group.count {
                    let entry = group.entry(at: offset)
                    changes.append(
                        (
                            SessionEpoch(name, group.epoch),
                            self.entry(id: entry.id, number: entry.number, isHit: entry.isHit, text: entry.text)
                        ))
                    offset = entry.end
                }
            }
            return changes
        case .entries:
            var changes: [(SessionEpoch, Entry?)] = []
            var offset = 1
            // Consecutive entries of one session need its name checked once.
            var last: (bytes: UnsafeRawBufferPointer, name: SessionName)?
            while offset < body.count {
                guard let item = JournalEntryItem(body, at: offset, end: body.count, hasEpoch: version >= 3) else {
                    return nil
                }
                let name: SessionName
                if let last, last.bytes.elementsEqual(item.name) {
                    name = last.name
                } else {
                    guard let itemName = sessionName(item.name) else { return nil }
                    name = itemName
                }
                last = (item.name, name)
                changes.append(
                    (
                        SessionEpoch(name, item.epoch),
                        entry(id: item.id, number: item.number, isHit: item.isHit, text: item.text)
                    ))
                offset = item.end
            }
            return changes
        case .freshStart:
            guard body.count >= 2, body.count == 2 + Int(body[1]),
                let name = sessionName(UnsafeRawBufferPointer(rebasing: body[2...]))
            else { return nil }
            return [(SessionEpoch(name, 0), nil)]
        case .entry:
            guard body.count >= 2 else { return nil }
            let recordStart = 2 + Int(body[1])
            guard body.count >= recordStart + EntryFile.recordLength(textLength: 0),
                let name = sessionName(UnsafeRawBufferPointer(rebasing: body[2..<recordStart])),
                Int(EntryFile.integer(UInt32.self, body, at: recordStart))
                    == body.count - recordStart - EntryFile.recordHeaderLength,
                body[recordStart + 24] <= 1
            else { return nil }
            let textStart = recordStart + EntryFile.recordLength(textLength: 0)
            let entry = Entry(
                id: EntryFile.integer(UInt64.self, body, at: recordStart + 8),
                number: EntryFile.integer(UInt64.self, body, at: recordStart + 16),
                text: String(decoding: UnsafeRawBufferPointer(rebasing: body[textStart...]), as: UTF8.self),
                isHit: body[recordStart + 24] == 1)
            return [(SessionEpoch(name, 0), entry)]
        case nil:
            return nil
        }
    }

    /// An entry read from a record, of either layout.
    private static func entry(id: UInt64, number: UInt64, isHit: Bool, text: UnsafeRawBufferPointer) -> Entry {
        Entry(id: id, number: number, text: String(decoding: text, as: UTF8.self), isHit: isHit)
    }

    private static func sessionName(_ bytes: UnsafeRawBufferPointer) -> SessionName? {
        SessionName(String(decoding: bytes, as: UTF8.self))
    }
}
