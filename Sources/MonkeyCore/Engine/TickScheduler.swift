/// When each typing session is next due, as a min-heap behind one timer.
///
/// Items name a session by its slot in the engine's `SessionTable`: plain
/// integers, so that sifting costs no reference counting.
/// Entries are never removed in place: a session that stops or changes its
/// interval gets a new due time, and the stale heap entry is skipped when it
/// surfaces (the caller checks `isCurrent`).
public struct TickScheduler: Sendable {
    public struct Item: Sendable {
        public let due: UInt64
        public let slot: Int
    }

    private var heap: [Item] = []

    public init() {}

    public var count: Int { heap.count }
    public var earliest: UInt64? { heap.first?.due }
    public func peek() -> Item? { heap.first }

    public mutating func schedule(_ slot: Int, at due: UInt64) {
        heap.append(Item(due: due, slot: slot))
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest item if it is due by `deadline`.
    public mutating func popDue(by deadline: UInt64) -> Item? {
        guard let first = heap.first, first.due <= deadline else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    /// Drops every stale item; called when stale ones outnumber live ones.
    public mutating func rebuild(keeping isCurrent: (Item) -> Bool) {
        heap = heap.filter(isCurrent)
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && heap[left + 1].due < heap[left].due { smallest = left + 1 }
            guard heap[smallest].due < heap[parent].due else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
