internal import CPrefetch

/// Typed entries on their way to the journal, encoded as they are typed
/// into the journal's entries records (see `JournalFile`). A record is
/// sealed with its length and checksum once it is large or when the batch
/// is handed to the writer, so a typed entry costs no checksum of its own.
public struct JournalBatch: Sendable {
    /// Whole journal records once sealed; until then the last one is open.
    public private(set) var records: RecordBuffer
    /// Where the open record starts; nil when none is open.
    private var openStart: Int?
    /// The last group of the open record that `append(groups:at:)` wrote (its
    /// session bytes, `JournalGroup.session`, and its count), which the
    /// next group of the same session and epoch joins.
    private var openGroup: (session: Range<Int>, count: Int)?
    /// Where each entry lies (`EntryPlace`), in typing order, for `JournalGrouping`.
    private var entryPlaces: [UInt64] = []
    /// An entry is 64 KiB or longer, lies past 8 MiB, or came in a group:
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
        spare.openGroup = nil
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
        append(
            id: id, number: number, isHit: isHit, text: text, session: session, nameHash: Self.nameHash(of: session),
            epoch: epoch)
    }

    /// The hash of a session's name that `append(id:number:isHit:text:session:nameHash:epoch:)`
    /// takes: worked out once for a session that types at every tick.
    public static func nameHash(of name: SessionName) -> UInt64 {
        name.text.withUTF8Bytes { NameBytesIndex.hash(UnsafeRawBufferPointer($0)) }
    }

    /// `append(id:number:isHit:text:session:epoch:)` with the hash of the
    /// session's name (`nameHash(of:)`) given: hashing the name at every
    /// tick was a thirtieth of a tick's instructions.
    public mutating func append(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeBufferPointer<UInt8>, session: SessionName,
        nameHash: UInt64, epoch: UInt64
    ) {
        openRecord()
        // Names of up to 15 bytes are stored in the strings themselves: no
        // memory of their own to reach at every entry.
        session.text.withUTF8Bytes { name in
            let textLength = UInt64(text.count)
            let before = records.count
            // Written into room for the longest integers, then counted:
            // working out the four integers' lengths first cost a tick 21
            // instructions more. The fields in order: the name's length,
            // the name, the epoch, the count, id, number, the hit flag,
            // the text's length and the text.
            let most =
                1 + name.count + VarInt.mostLength + 1 + 2 * VarInt.mostLength + 1 + VarInt.mostLength + text.count
            records.withRoom(for: most) { room, start in
                let item = UnsafeMutableRawBufferPointer(rebasing: room[start...])
                item[0] = UInt8(name.count)
                UnsafeMutableRawBufferPointer(rebasing: item[1...]).copyMemory(from: UnsafeRawBufferPointer(name))
                var offset = VarInt.store(epoch, in: item, at: 1 + name.count)
                item[offset] = 1
                offset = VarInt.store(id, in: item, at: offset + 1)
                offset = VarInt.store(number, in: item, at: offset)
                item[offset] = isHit ? 1 : 0
                offset = VarInt.store(textLength, in: item, at: offset + 1)
                UnsafeMutableRawBufferPointer(rebasing: item[offset...]).copyMemory(from: UnsafeRawBufferPointer(text))
                return offset + text.count
            }
            notePlace(nameHash: nameHash, epoch: epoch, length: records.count - before, at: before)
            // A group of its own: `JournalGrouping` joins a session's entries of a sync.
            openGroup = nil
        }
        sealIfLarge()
    }

    /// Appends the groups of one entry that `places` (as `places` gives
    /// them) point at in `source`, in that order (`JournalGrouping`): each
    /// joins the group before when that is of the same session and epoch,
    /// in the same record, with room for it. All in one access to the
    /// records, sealing each as it reaches the limit: a call for each
    /// group, at every entry of a sync, cost twice as much.
    public mutating func append(groups source: UnsafeRawBufferPointer, at places: [UInt64]) {
        guard !places.isEmpty, let base = source.baseAddress else { return }
        hasUnplacedEntries = true
        // Joined, the groups take no more room than they do apart; a record's head for each limit's worth.
        let heads = (source.count / JournalFile.entriesRecordLimit + 2) * (JournalFile.recordHeaderLength + 1)
        var openStart = self.openStart
        var openGroup = self.openGroup
        records.withRoom(for: source.count + heads) { records, start in
            var count = start
            for (index, place) in places.enumerated() {
                // Taken in session order, the entries lie all over a batch
                // larger than the caches: each copy waited on memory.
                if index &+ Self.prefetchDistance < places.count {
                    monkey_prefetch_for_reading(
                        base + EntryPlace.offset(places[index &+ Self.prefetchDistance]))
                }
                let from = EntryPlace.offset(place)
                let encoded = UnsafeRawBufferPointer(rebasing: source[from..<(from + EntryPlace.length(place))])
                guard let group = JournalGroup(encoded, at: 0) else {
                    preconditionFailure("a batch's group reads again")
                }
                if openStart == nil {
                    openStart = count
                    openGroup = nil
                    records[count + JournalFile.recordHeaderLength] = JournalFile.Kind.entries.rawValue
                    count += JournalFile.recordHeaderLength + 1
                }
                if let open = openGroup, open.count + group.count <= JournalGroup.maximumCount,
                    Self.isEqual(
                        UnsafeRawBufferPointer(rebasing: records[open.session]),
                        UnsafeRawBufferPointer(rebasing: encoded[group.session]))
                {
                    records[open.session.upperBound] = UInt8(open.count + group.count)
                    openGroup = (open.session, open.count + group.count)
                    let entries = UnsafeRawBufferPointer(rebasing: encoded[group.entriesStart...])
                    UnsafeMutableRawBufferPointer(rebasing: records[count...]).copyMemory(from: entries)
                    count += entries.count
                } else {
                    openGroup = ((count + group.session.lowerBound)..<(count + group.session.upperBound), group.count)
                    UnsafeMutableRawBufferPointer(rebasing: records[count...]).copyMemory(from: encoded)
                    count += encoded.count
                }
                if let recordStart = openStart, count - recordStart >= JournalFile.entriesRecordLimit {
                    SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: records[recordStart..<count]))
                    openStart = nil
                    openGroup = nil
                }
            }
            return count - start
        }
        self.openStart = openStart
        self.openGroup = openGroup
    }

    /// How many entries ahead of its copy an entry is asked for: a copy
    /// takes some tens of nanoseconds, memory a few hundred.
    private static let prefetchDistance = 8

    /// Whether `a` and `b` hold the same bytes: eight at a time, where
    /// `elementsEqual` took one at a time through an iterator, for every
    /// entry a sync groups.
    @inline(__always)
    static func isEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var offset = 0
        while a.count - offset >= 8 {
            guard
                a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < a.count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Seals the open record: `records` are then whole journal records.
    public mutating func seal() {
        guard let start = openStart else { return }
        openStart = nil
        openGroup = nil
        records.withUnsafeMutableBytes { SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    // Inlined, as `sealIfLarge`: as calls of their own, their entries and
    // exits were a fiftieth of a tick.
    @inline(__always)
    private mutating func notePlace(nameHash: UInt64, epoch: UInt64, length: Int, at start: Int) {
        guard start < EntryPlace.offsetLimit, length < EntryPlace.lengthLimit else {
            hasUnplacedEntries = true
            return
        }
        // Two sessions that share a key only share a group: their entries interleave.
        entryPlaces.append(
            EntryPlace.place(key: EntryPlace.key(nameHash: nameHash, epoch: epoch), length: length, offset: start))
    }

    private mutating func openRecord() {
        guard openStart == nil else { return }
        openStart = records.count
        records.append(length: JournalFile.recordHeaderLength + 1) { header in
            header[JournalFile.recordHeaderLength] = JournalFile.Kind.entries.rawValue
        }
    }

    @inline(__always)
    private mutating func sealIfLarge() {
        if let start = openStart, records.count - start >= JournalFile.entriesRecordLimit { seal() }
    }
}
