/// A session's retained entries, oldest first, holding at most `capacity`
/// (older ones are dropped; numbers and ids are never changed).
///
/// A ring buffer that grows to its capacity on demand, so a session with few
/// entries costs little.
public struct EntryLog: Sendable {
    private var storage: [Entry] = []
    /// Index in `storage` of the oldest entry once the ring has wrapped.
    private var head = 0
    public private(set) var capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0, "a log holds at least one entry")
        self.capacity = capacity
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }

    /// The entry at `position`, 0 being the oldest retained.
    public subscript(position: Int) -> Entry {
        storage[(head + position) % storage.count]
    }

    public var newest: Entry? { isEmpty ? nil : self[count - 1] }
    public var oldest: Entry? { isEmpty ? nil : self[0] }

    /// Reads where the next entry goes (see `SessionTable.touch`).
    func touch() -> Int {
        guard !storage.isEmpty else { return 0 }
        return Int(truncatingIfNeeded: storage[storage.count < capacity ? storage.count - 1 : head].id)
    }

    /// Appends the entry; returns true if the oldest was dropped to make room.
    @discardableResult
    public mutating func append(_ entry: Entry) -> Bool {
        if storage.count < capacity {
            storage.append(entry)
            return false
        }
        storage[head] = entry
        head = (head + 1) % storage.count
        return true
    }

    public mutating func removeAll() {
        storage = []
        head = 0
    }

    /// Changes the capacity, dropping the oldest entries if it shrinks.
    public mutating func setCapacity(_ newCapacity: Int) {
        precondition(newCapacity > 0, "a log holds at least one entry")
        let kept = (max(0, count - newCapacity)..<count).map { self[$0] }
        storage = kept
        head = 0
        capacity = newCapacity
    }

    /// The position of the first entry whose id is greater than `id`
    /// (`count` if there is none).
    public func position(afterID id: UInt64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].id <= id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The positions a `LOG`/`TAIL` query selects: entries after `afterID`,
    /// then only the last `last` of those.
    public func positions(afterID: UInt64?, last: Int?) -> Range<Int> {
        let start = afterID.map { position(afterID: $0) } ?? 0
        guard let last else { return start..<count }
        return max(start, count - last)..<count
    }
}
