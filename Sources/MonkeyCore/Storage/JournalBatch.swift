/// Typed entries on their way to the journal, encoded as they are typed
/// into the journal's entries records (see `JournalFile`). A record is
/// sealed with its length and checksum once it is large or when the batch
/// is handed to the writer, so a typed entry costs no checksum of its own.
public struct JournalBatch: Sendable {
    /// Whole journal records once sealed; until then the last one is open.
    public private(set) var records: RecordBuffer
    /// Where the open record starts; nil when none is open.
    private var openStart: Int?
    /// Each entry's session (a 16-bit hash of its name and epoch), its
    /// length (16 bits) and the offset of its first byte in `records` (32
    /// bits), in typing order, for `JournalGrouping`.
    private var entryPlaces: [UInt64] = []
    /// An entry is 64 KiB or longer, lies past 4 GiB, or came encoded:
    /// `places` cannot say.
    private var hasUnplacedEntries = false
    /// Where each entry lies, as `entryPlaces`; nil when that is not known of every entry.
    public var places: [UInt64]? { hasUnplacedEntries ? nil : entryPlaces }

    public init() {
        records = RecordBuffer()
    }

    /// An empty batch in the memory of `spare` (emptied first), so that the
    /// records and places of a batch used at every sync keep the pages
    /// they already have: grown afresh, the places alone were a third of
    /// the daemon's page faults with 10,000 sessions typing.
    public init(reusing spare: consuming JournalBatch) {
        spare.records.removeAll()
        spare.entryPlaces.removeAll(keepingCapacity: true)
        spare.openStart = nil
        spare.hasUnplacedEntries = false
        self = spare
    }

    public var isEmpty: Bool { records.isEmpty }
    /// Bytes in the batch, sealed or not.
    public var count: Int { records.count }

    /// Appends an entry `session` typed in `epoch`.
    public mutating func append(_ entry: Entry, session: SessionName, epoch: UInt64) {
        entry.text.withUTF8Bytes { text in
            append(id: entry.id, number: entry.number, isHit: entry.isHit, text: text, session: session, epoch: epoch)
        }
    }

    /// Appends an entry `session` typed in `epoch` whose text is `text`, in UTF-8.
    public mutating func append(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeBufferPointer<UInt8>, session: SessionName,
        epoch: UInt64
    ) {
        openRecord()
        // Names of up to 15 bytes are stored in the strings themselves: no
        // memory of their own to reach at every entry.
        session.text.withUTF8Bytes { name in
            let textLength = UInt64(text.count)
            let length =
                1 + name.count + VarInt.length(of: epoch) + VarInt.length(of: id) + VarInt.length(of: number) + 1
                + VarInt.length(of: textLength) + text.count
            notePlace(name: name, epoch: epoch, length: length)
            records.append(length: length) { item in
                item[0] = UInt8(name.count)
                UnsafeMutableRawBufferPointer(rebasing: item[1...]).copyMemory(from: UnsafeRawBufferPointer(name))
                var offset = VarInt.store(epoch, in: item, at: 1 + name.count)
                offset = VarInt.store(id, in: item, at: offset)
                offset = VarInt.store(number, in: item, at: offset)
                item[offset] = isHit ? 1 : 0
                offset = VarInt.store(textLength, in: item, at: offset + 1)
                UnsafeMutableRawBufferPointer(rebasing: item[offset...]).copyMemory(from: UnsafeRawBufferPointer(text))
            }
        }
        sealIfLarge()
    }

    /// Appends an entry already encoded as an entries record holds it
    /// (`JournalGrouping`).
    public mutating func append(encoded entry: UnsafeRawBufferPointer) {
        openRecord()
        hasUnplacedEntries = true
        records.append(length: entry.count) { $0.copyMemory(from: entry) }
        sealIfLarge()
    }

    /// Seals the open record: `records` are then whole journal records.
    public mutating func seal() {
        guard let start = openStart else { return }
        openStart = nil
        records.withUnsafeMutableBytes { SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    private mutating func notePlace(name: UnsafeBufferPointer<UInt8>, epoch: UInt64, length: Int) {
        guard records.count <= Int(UInt32.max), length <= Int(UInt16.max) else {
            hasUnplacedEntries = true
            return
        }
        // Two sessions that share a hash only share a group: their entries interleave.
        let session = (NameBytesIndex.hash(UnsafeRawBufferPointer(name)) ^ epoch) &* 0x9E37_79B9_7F4A_7C15
        entryPlaces.append(session & 0xFFFF_0000_0000_0000 | UInt64(length) << 32 | UInt64(records.count))
    }

    private mutating func openRecord() {
        guard openStart == nil else { return }
        openStart = records.count
        records.append(length: JournalFile.recordHeaderLength + 1) { header in
            header[JournalFile.recordHeaderLength] = JournalFile.Kind.entries.rawValue
        }
    }

    private mutating func sealIfLarge() {
        if let start = openStart, records.count - start >= JournalFile.entriesRecordLimit { seal() }
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
    /// The entry's bytes after the name and epoch: as a run of an entries
    /// file holds it (`EntryFile`).
    public let entry: UnsafeRawBufferPointer

    /// Reads the entry at `offset`; nil if it does not fit before `end` or is malformed.
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
        // After the name and epoch, an entry is encoded as a run of an entries file holds it.
        guard let entry = EntryFile.RunEntry(bytes, at: position) else { return nil }
        self.name = UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<nameEnd])
        self.epoch = epoch
        id = entry.id
        number = entry.number
        isHit = entry.isHit
        text = UnsafeRawBufferPointer(rebasing: bytes[entry.text])
        self.end = entry.end
        self.entry = UnsafeRawBufferPointer(rebasing: bytes[position..<entry.end])
    }
}
