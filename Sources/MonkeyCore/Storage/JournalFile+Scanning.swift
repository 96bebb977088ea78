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
        /// fresh start or a single entry, which format version 3 never writes).
        case otherKind
    }
}

extension JournalFile {
    /// Reads the whole records of a journal of format version 3 in `chunk`,
    /// which starts at a record boundary `fileOffset` bytes into the file
    /// (damage is reported at its offset in the file), handing each entry to
    /// `visit` in journal order.
    public static func scanEntries(
        _ chunk: UnsafeRawBufferPointer, fileOffset: Int, visit: (JournalEntryItem) -> Void
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
            guard isWellFormed(entries: body) else {
                return JournalScan(consumed: offset, stop: .damaged(.checksumMismatch(offset: at)))
            }
            var position = 1
            while position < body.count,
                let item = JournalEntryItem(body, at: position, end: body.count, hasEpoch: true)
            {
                visit(item)
                position = item.end
            }
            offset = bodyStart + length
        }
        return JournalScan(consumed: offset, stop: .endOfChunk)
    }

    /// Whether an entries record's body holds whole entries of valid session names.
    private static func isWellFormed(entries body: UnsafeRawBufferPointer) -> Bool {
        var position = 1
        while position < body.count {
            guard let item = JournalEntryItem(body, at: position, end: body.count, hasEpoch: true),
                SessionName.isValid(bytes: item.name)
            else { return false }
            position = item.end
        }
        return true
    }
}
