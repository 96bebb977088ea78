/// The chunk index's hash table: open addressing with linear probing, each
/// slot a tag byte (0 = empty, else 0x80 | seven bits of the hash) and the
/// position of a chunk's head in the corpus. No key is stored: a slot
/// whose tag matches is verified by comparing the window with the
/// corpus's symbols at its head. The slots are as many as the chunks need
/// at a load of 7 in 10 (the high 32 bits of the hash, times the number
/// of slots, over 2^32, is the first slot), not the next power of two.
struct ChunkTable {
    let chunkLength: Int
    private(set) var capacity: Int
    private(set) var tags: [UInt8]
    private(set) var heads: [UInt32]
    /// Distinct chunks inserted.
    private(set) var count = 0

    /// A table for at most `chunks` distinct chunks: it does not grow.
    init(chunkLength: Int, chunks: Int) {
        self.chunkLength = chunkLength
        capacity = Self.capacity(for: chunks)
        tags = [UInt8](repeating: 0, count: capacity)
        heads = [UInt32](repeating: 0, count: capacity)
    }

    /// The slots for `chunks` chunks at a load of at most 7 in 10, and at least one empty.
    static func capacity(for chunks: Int) -> Int {
        max(16, chunks + chunks * 3 / 7 + 1)
    }

    /// A 64-bit hash of `chunkLength` symbols (`symbol(offset)`): a
    /// multiply-add chain, then a finaliser (MurmurHash3's fmix64) so that
    /// the slot (high bits) and the tag (low bits) both depend on every symbol.
    @inline(__always)
    static func hash(chunkLength: Int, _ symbol: (Int) -> UInt8) -> UInt64 {
        var hash: UInt64 = 0x243F_6A88_85A3_08D3
        for offset in 0..<chunkLength {
            hash = (hash &+ UInt64(symbol(offset))) &* 0x9E37_79B9_7F4A_7C15
        }
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }

    @inline(__always)
    static func tag(of hash: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: hash) | 0x80 }

    @inline(__always)
    static func slot(of hash: UInt64, capacity: Int) -> Int {
        Int(truncatingIfNeeded: ((hash >> 32) &* UInt64(truncatingIfNeeded: capacity)) >> 32)
    }

    /// The chunk whose characters are the `chunkLength` symbols
    /// `symbol(0) ...`, if the table (`tags`, `heads`, over the corpus's
    /// `symbols`) has it.
    @inline(__always)
    static func find(
        chunkLength: Int, tags: UnsafeBufferPointer<UInt8>, heads: UnsafeBufferPointer<UInt32>,
        symbols: UnsafeBufferPointer<UInt8>, _ symbol: (Int) -> UInt8
    ) -> ChunkID? {
        let hash = Self.hash(chunkLength: chunkLength, symbol)
        let capacity = tags.count
        let tag = Self.tag(of: hash)
        var slot = Self.slot(of: hash, capacity: capacity)
        while true {
            let found = tags[slot]
            if found == 0 { return nil }
            if found == tag {
                let head = heads[slot]
                let chunk = symbols.baseAddress.unsafelyUnwrapped + Int(head)
                var offset = 0
                while offset < chunkLength && chunk[offset] == symbol(offset) { offset += 1 }
                if offset == chunkLength { return ChunkID(firstPosition: head) }
            }
            slot += 1
            if slot == capacity { slot = 0 }
        }
    }

    /// Inserts the window at `position` of the corpus (`symbols`) as its
    /// chunk's new head, returning the old head (`ChunkIndex.noOccurrence`
    /// for a chunk new to the table): the next occurrence of the window's chunk.
    mutating func insert(position: UInt32, symbols: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let base = symbols.baseAddress.unsafelyUnwrapped
        let window = base + Int(position)
        let hash = Self.hash(chunkLength: chunkLength) { window[$0] }
        let tag = Self.tag(of: hash)
        let capacity = self.capacity
        var slot = Self.slot(of: hash, capacity: capacity)
        while true {
            let found = tags[slot]
            if found == 0 { break }
            if found == tag {
                let head = heads[slot]
                if Self.equal(base + Int(head), window, chunkLength) {
                    heads[slot] = position
                    return head
                }
            }
            slot += 1
            if slot == capacity { slot = 0 }
        }
        precondition(count + 1 < capacity, "a chunk table sized for its chunks")
        tags[slot] = tag
        heads[slot] = position
        count += 1
        return ChunkIndex.noOccurrence
    }

    /// The same chunks in as few slots as they need, once all are in:
    /// the table was sized for one chunk a window, and most corpora repeat.
    mutating func shrink(symbols: UnsafeBufferPointer<UInt8>) {
        let needed = Self.capacity(for: count)
        guard needed < capacity - capacity / 4 else { return }
        let oldTags = tags
        let oldHeads = heads
        capacity = needed
        tags = [UInt8](repeating: 0, count: needed)
        heads = [UInt32](repeating: 0, count: needed)
        let base = symbols.baseAddress.unsafelyUnwrapped
        for index in oldTags.indices where oldTags[index] != 0 {
            let head = oldHeads[index]
            let window = base + Int(head)
            let hash = Self.hash(chunkLength: chunkLength) { window[$0] }
            var slot = Self.slot(of: hash, capacity: needed)
            while tags[slot] != 0 {
                slot += 1
                if slot == needed { slot = 0 }
            }
            tags[slot] = Self.tag(of: hash)
            heads[slot] = head
        }
    }

    @inline(__always)
    private static func equal(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for offset in 0..<count where lhs[offset] != rhs[offset] { return false }
        return true
    }
}
