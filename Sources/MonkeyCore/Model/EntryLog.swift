internal import CPrefetch

/// A session's retained entries, oldest first, holding at most `capacity`
/// (older ones are dropped; numbers and ids are never changed).
///
/// Entries live in chunks of eight. The chunk being filled is a value in
/// the log itself (`FillingChunk`): a tick's append writes only the log's
/// own memory, which lies in the session's slot, with no check of a chunk
/// that a copy of the log might share, and a growing log never copies what
/// it holds. The list of full chunks, an array header far from the
/// session, is reached only when a chunk fills or is dropped: with
/// thousands of sessions, reaching it at every tick was most of a tick's
/// cost. A full chunk moves to the heap (`EntryChunk`) and never changes:
/// copies of a log share it, and retention drops it whole.
public struct EntryLog: Sendable {
    /// Full chunks, oldest first, from `firstFull` on (earlier slots are
    /// dropped chunks, removed in bulk now and then).
    private var full: [EntryChunk?] = []
    private var firstFull = 0
    /// The chunk being filled, and how many of its slots hold entries
    /// (0 only while the log is empty).
    private var filling = FillingChunk()
    private var fillingCount = 0
    /// Entries already dropped from the oldest chunk.
    private var droppedInOldest = 0
    /// Kept, not derived from the fields above: deriving it would read the
    /// full chunks' array header at every append, the miss the chunks avoid.
    public private(set) var count = 0
    public private(set) var capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0, "a log holds at least one entry")
        self.capacity = capacity
    }

    public var isEmpty: Bool { count == 0 }

    /// The entry at `position`, 0 being the oldest retained.
    public subscript(position: Int) -> Entry {
        precondition(position >= 0 && position < count, "no entry at this position")
        let index = position + droppedInOldest
        let chunk = index / EntryChunk.size
        guard chunk < full.count - firstFull else { return filling[index % EntryChunk.size] }
        guard let holder = full[firstFull + chunk] else {
            preconditionFailure("a position below count lies in a chunk the log holds")
        }
        return holder[index % EntryChunk.size]
    }

    public var newest: Entry? { isEmpty ? nil : filling[fillingCount - 1] }
    public var oldest: Entry? { isEmpty ? nil : self[0] }

    /// Starts bringing into the caches what the next append reaches beyond
    /// the log itself, when it reaches anything: the list of full chunks,
    /// its header (the uniqueness check) and the places where the chunk
    /// being filled goes and the oldest is dropped. Reads only the log: the
    /// list's address is taken without reading the list. With 10,000
    /// sessions ticking, the list has left the caches by every eighth tick
    /// of a session, which waited on it two or three times.
    func prefetchForNextAppend() {
        guard fillingCount == EntryChunk.size else { return }
        // An array is one reference to its storage: a header of two words
        // (the object's) and two (count, capacity), then the elements.
        let storage = unsafeBitCast(full, to: UnsafeRawPointer.self)
        let elements = storage + 4 * MemoryLayout<Int>.stride
        let heldChunks = (droppedInOldest + count - fillingCount) / EntryChunk.size
        let stride = MemoryLayout<EntryChunk?>.stride
        monkey_prefetch_for_writing(storage)
        monkey_prefetch_for_writing(elements + (firstFull + heldChunks) * stride)
        monkey_prefetch_for_writing(elements + firstFull * stride)
    }

    /// Where the slots of the chunk being filled lie in a log, in bytes
    /// from its start: what the tick path brings into the caches of them
    /// is the slot the next append writes (`nextSlot`), not all eight.
    static var fillingSlots: Range<Int> {
        guard let chunk = MemoryLayout<EntryLog>.offset(of: \EntryLog.filling),
            let slots = MemoryLayout<FillingChunk>.offset(of: \FillingChunk.slots)
        else { preconditionFailure("stored properties have offsets") }
        return (chunk + slots)..<(chunk + slots + MemoryLayout<EntryChunk.Slots>.size)
    }

    /// The slot of `fillingSlots` the next append writes; nil when it moves
    /// the chunk to the full ones first, reading every slot.
    var nextSlot: Int? { fillingCount == EntryChunk.size ? nil : fillingCount }

    /// Appends the entry; returns true if the oldest was dropped to make room.
    @discardableResult
    public mutating func append(_ entry: Entry) -> Bool {
        filling.write(entry, toSlot: startAppend())
        return finishAppend()
    }

    /// Appends an entry whose text is `text`, in UTF-8, without a `String`
    /// of it when it fits in the entry; as `append(_:)`.
    @discardableResult
    public mutating func append(id: UInt64, number: UInt64, isHit: Bool, text: UnsafeBufferPointer<UInt8>) -> Bool {
        filling.write(id: id, number: number, isHit: isHit, text: text, toSlot: startAppend())
        return finishAppend()
    }

    /// Makes room in the chunk being filled; answers the slot to write.
    /// Inlined, as `finishAppend` is, with what happens once a chunk out
    /// of line (see `Session.absorb(bytes:isHit:)`).
    @inline(__always)
    private mutating func startAppend() -> Int {
        if fillingCount == EntryChunk.size { moveFillingToFull() }
        return fillingCount
    }

    @inline(never)
    private mutating func moveFillingToFull() {
        full.append(EntryChunk(filling))
        fillingCount = 0
    }

    /// Counts the entry just written, dropping the oldest if it is over capacity.
    @inline(__always)
    private mutating func finishAppend() -> Bool {
        fillingCount += 1
        count += 1
        guard count > capacity else { return false }
        dropOldest()
        return true
    }

    /// Drops the oldest entry, over capacity since an append.
    @inline(never)
    private mutating func dropOldest() {
        count -= 1
        droppedInOldest += 1
        guard droppedInOldest == EntryChunk.size else { return }
        // All of the oldest chunk is dropped. It is a full one: the chunk
        // being filled holds the newest entry, which is never dropped.
        full[firstFull] = nil
        firstFull += 1
        droppedInOldest = 0
        // Dropped slots are removed in bulk, so dropping stays O(1) on average.
        if firstFull >= 64 && firstFull * 2 >= full.count {
            full.removeFirst(firstFull)
            firstFull = 0
        }
    }

    public mutating func removeAll() {
        self = EntryLog(capacity: capacity)
    }

    /// Changes the capacity, dropping the oldest entries if it shrinks.
    public mutating func setCapacity(_ newCapacity: Int) {
        precondition(newCapacity > 0, "a log holds at least one entry")
        var resized = EntryLog(capacity: newCapacity)
        for position in max(0, count - newCapacity)..<count { resized.append(self[position]) }
        self = resized
    }

    /// The position of the first entry whose id is greater than `id`
    /// (`count` if there is none).
    public func position(afterID id: UInt64) -> Int {
        (0..<count).partitionPoint { self[$0].id > id }
    }

    /// The positions a `LOG`/`TAIL` query selects: entries after `afterID`,
    /// then only the last `last` of those.
    public func positions(afterID: UInt64?, last: Int?) -> Range<Int> {
        let start = afterID.map { position(afterID: $0) } ?? 0
        guard let last else { return start..<count }
        return max(start, count - last)..<count
    }
}
