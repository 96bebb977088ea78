/// The head of a group in a journal entries record of format version 4:
/// one session's entries of one epoch that follow it, read in place.
struct JournalGroup {
    /// The session's name in UTF-8 (not yet checked to be a valid name).
    let name: UnsafeRawBufferPointer
    let epoch: UInt64
    /// Entries in the group, at least one.
    let count: Int
    /// The offset of its first entry.
    let entriesStart: Int
    /// Its name's length byte, the name and the epoch: what two groups of
    /// the same session and epoch share, byte for byte.
    let session: Range<Int>

    /// The most entries a group holds: its count is one byte.
    static let maximumCount = 255

    /// Reads the group's head at `offset`; nil if it does not fit in
    /// `bytes` with room for an entry, or its count is 0.
    init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard offset < bytes.count else { return nil }
        let nameEnd = offset + 1 + Int(bytes[offset])
        guard nameEnd < bytes.count else { return nil }
        var position = nameEnd
        guard let epoch = VarInt.load(from: bytes, at: &position), position < bytes.count, bytes[position] > 0 else {
            return nil
        }
        name = UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<nameEnd])
        self.epoch = epoch
        count = Int(bytes[position])
        session = offset..<position
        entriesStart = position + 1
    }
}

/// One entry of a journal entries record, read in place (valid while the
/// bytes it was read from are).
public struct JournalEntryItem {
    /// The session's name in UTF-8.
    public let name: UnsafeRawBufferPointer
    /// 0 in journals of versions 1 and 2.
    public let epoch: UInt64
    public let id: UInt64
    public let number: UInt64
    public let isHit: Bool
    /// The text in UTF-8.
    public let text: UnsafeRawBufferPointer
    /// The offset just past the entry.
    let end: Int

    /// Reads the entry at `offset` of a record of format version 3 or
    /// earlier, where each entry has its session's name (and from version
    /// 3 its epoch); nil if it does not fit before `end` or is malformed.
    init?(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int, hasEpoch: Bool) {
        let bytes = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        guard offset < end else { return nil }
        let nameEnd = offset + 1 + Int(bytes[offset])
        guard nameEnd < end else { return nil }
        var position = nameEnd
        var epoch: UInt64 = 0
        if hasEpoch {
            guard let stored = VarInt.load(from: bytes, at: &position) else { return nil }
            epoch = stored
        }
        guard let entry = EntryFile.RunEntry(bytes, at: position) else { return nil }
        self.init(
            name: UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<nameEnd]), epoch: epoch, id: entry.id,
            number: entry.number, isHit: entry.isHit, text: UnsafeRawBufferPointer(rebasing: bytes[entry.text]),
            end: entry.end)
    }

    init(
        name: UnsafeRawBufferPointer, epoch: UInt64, id: UInt64, number: UInt64, isHit: Bool,
        text: UnsafeRawBufferPointer, end: Int
    ) {
        self.name = name
        self.epoch = epoch
        self.id = id
        self.number = number
        self.isHit = isHit
        self.text = text
        self.end = end
    }
}
