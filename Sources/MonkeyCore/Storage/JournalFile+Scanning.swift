/// Reading a journal in bounded pieces, for a fold that must not hold the
/// whole journal (`JournalFile.decode` does): the records of one chunk are
/// read in place, each checked whole before any of its entries is seen, as
/// `decode` takes them.
public struct JournalScan: Sendable, Equatable {
    /// Bytes of the chunk read: whole records only.
    public var consumed: Int
    public var stop: Stop

    public enum Stop: Sendable, Equatable {
        /// Every byte of the chunk was a whole record.
        case endOfChunk
        /// The record at `consumed` is `length` bytes, more than the chunk
        /// still holds: read on (at the end of the file, it is torn).
        case needsMore(length: Int)
        /// The record at `consumed` is damage: reading stops there.
        case damaged(EntryFileContents.Damage)
        /// The record at `consumed` is of a kind only `decode` reads (a
        /// fresh start or a single entry, which format version 4 never writes).
        case otherKind
    }
}

/// One group of a journal entries record as a scan hands it over: a
/// session's entries of one epoch, read in place (valid while the chunk is).
public struct JournalGroupItem {
    /// The session's name in UTF-8, a valid name.
    public let name: UnsafeRawBufferPointer
    public let epoch: UInt64
    /// Its entries, at least one.
    public let count: Int
    /// Its entries' bytes, as a run of an entries file holds them (`EntryFile`).
    public let entries: UnsafeRawBufferPointer
    /// Its first entry's id and number, and its last's.
    public let first: (id: UInt64, number: UInt64)
    public let last: (id: UInt64, number: UInt64)
    /// Each entry's id and number are above the one before's: a fold that
    /// takes the first takes them all, without reading them again.
    public let isIncreasing: Bool

    /// The entry at `offset` of `entries` (0 for the first; the one
    /// before's `end` for the next), read in place.
    public func entry(at offset: Int) -> JournalGroupEntry {
        guard let entry = EntryFile.RunEntry(entries, at: offset) else {
            preconditionFailure("a scanned group's entries read again")
        }
        return JournalGroupEntry(
            id: entry.id, number: entry.number, isHit: entry.isHit,
            text: UnsafeRawBufferPointer(rebasing: entries[entry.text]), end: entry.end)
    }
}

/// One entry of a `JournalGroupItem`.
public struct JournalGroupEntry {
    public let id: UInt64
    public let number: UInt64
    public let isHit: Bool
    /// The text in UTF-8.
    public let text: UnsafeRawBufferPointer
    /// The offset just past it in its group's `entries`.
    public let end: Int
}

/// The groups of a record as a scan checked them, kept from one chunk to
/// the next by a reader of many: grown afresh for each chunk, with 10,000
/// sessions the array's copies were a tenth of a fold's instructions.
public struct JournalScanScratch {
    var groups: [JournalFile.CheckedGroup] = []

    public init() {}
}

extension JournalFile {
    /// Reads the whole records of a journal of format version 4 in `chunk`,
    /// which starts at a record boundary `fileOffset` bytes into the file
    /// (damage is reported at its offset in the file), handing each entry to
    /// `visit` in journal order.
    public static func scanEntries(
        _ chunk: UnsafeRawBufferPointer, fileOffset: Int, visit: (JournalEntryItem) -> Void
    ) -> JournalScan {
        scanGroups(chunk, fileOffset: fileOffset) { group in
            var offset = 0
            for _ in 0..<group.count {
                let entry = group.entry(at: offset)
                visit(
                    JournalEntryItem(
                        name: group.name, epoch: group.epoch, id: entry.id, number: entry.number, isHit: entry.isHit,
                        text: entry.text, end: entry.end))
                offset = entry.end
            }
        }
    }

    /// Reads the whole records of a journal of format version 4 in `chunk`,
    /// as `scanEntries` does, handing each group of entries to `visit`:
    /// what a fold takes a group at a time.
    public static func scanGroups(
        _ chunk: UnsafeRawBufferPointer, fileOffset: Int, visit: (JournalGroupItem) -> Void
    ) -> JournalScan {
        var scratch = JournalScanScratch()
        return scanGroups(chunk, fileOffset: fileOffset, scratch: &scratch, visit: visit)
    }

    /// `scanGroups(_:fileOffset:visit:)` with memory kept from one chunk to
    /// the next in `scratch`.
    public static func scanGroups(
        _ chunk: UnsafeRawBufferPointer, fileOffset: Int, scratch: inout JournalScanScratch,
        visit: (JournalGroupItem) -> Void
    ) -> JournalScan {
        var offset = 0
        while offset < chunk.count {
            let at = fileOffset + offset
            guard chunk.count - offset >= recordHeaderLength + 1 else {
                return JournalScan(consumed: offset, stop: .needsMore(length: recordHeaderLength + 1))
            }
            let length = Int(EntryFile.integer(UInt32.self, chunk, at: offset))
            guard length >= 1, length <= maximumRecordLength else {
                return JournalScan(consumed: offset, stop: .damaged(.badLength(offset: at)))
            }
            let bodyStart = offset + recordHeaderLength
            guard chunk.count - bodyStart >= length else {
                return JournalScan(consumed: offset, stop: .needsMore(length: recordHeaderLength + length))
            }
            let body = UnsafeRawBufferPointer(rebasing: chunk[bodyStart..<(bodyStart + length)])
            let computed = CRC32C.checksum(
                body, continuing: CRC32C.checksum(UnsafeRawBufferPointer(rebasing: chunk[offset..<(offset + 4)])))
            guard EntryFile.integer(UInt32.self, chunk, at: offset + 4) == computed else {
                return JournalScan(consumed: offset, stop: .damaged(.checksumMismatch(offset: at)))
            }
            guard Kind(rawValue: body[0]) == .entries else {
                if Kind(rawValue: body[0]) == nil {
                    return JournalScan(consumed: offset, stop: .damaged(.checksumMismatch(offset: at)))
                }
                return JournalScan(consumed: offset, stop: .otherKind)
            }
            // A record is taken whole or not at all: checked first, then read.
            guard isWellFormed(entries: body, groups: &scratch.groups) else {
                return JournalScan(consumed: offset, stop: .damaged(.checksumMismatch(offset: at)))
            }
            for checked in scratch.groups { visit(checked.item(in: body)) }
            offset = bodyStart + length
        }
        return JournalScan(consumed: offset, stop: .endOfChunk)
    }

    /// A group of a record that was checked, with what its entries told.
    struct CheckedGroup {
        let head: JournalGroup
        let end: Int
        let first: (id: UInt64, number: UInt64)
        let last: (id: UInt64, number: UInt64)
        let isIncreasing: Bool

        /// The group as it lies in `body`, the body it was checked in.
        @inline(__always)
        func item(in body: UnsafeRawBufferPointer) -> JournalGroupItem {
            JournalGroupItem(
                name: head.name, epoch: head.epoch, count: head.count,
                entries: UnsafeRawBufferPointer(rebasing: body[head.entriesStart..<end]), first: first, last: last,
                isIncreasing: isIncreasing)
        }
    }

    /// Whether an entries record's body of format version 4 (its kind byte
    /// first) holds whole groups of whole entries of valid session names;
    /// `groups` says what each group holds. The one reader of that
    /// format's groups: the fold's scan and `decode` both check with it.
    static func isWellFormed(entries body: UnsafeRawBufferPointer, groups: inout [CheckedGroup]) -> Bool {
        groups.removeAll(keepingCapacity: true)
        var position = 1
        while position < body.count {
            guard let group = JournalGroup(body, at: position), SessionName.isValid(bytes: group.name),
                let first = EntryFile.RunEntry(body, at: group.entriesStart)
            else { return false }
            position = first.end
            var last = (id: first.id, number: first.number)
            var isIncreasing = true
            for _ in 1..<group.count {
                guard let entry = EntryFile.RunEntry(body, at: position) else { return false }
                isIncreasing = isIncreasing && entry.id > last.id && entry.number > last.number
                last = (entry.id, entry.number)
                position = entry.end
            }
            groups.append(
                CheckedGroup(
                    head: group, end: position, first: (first.id, first.number), last: last, isIncreasing: isIncreasing)
            )
        }
        return true
    }
}
