/// When each typing session is next due, behind one timer: a queue for
/// items scheduled in due order, and a min-heap for the others.
///
/// Sessions of one interval are rescheduled in the order they tick, each
/// one interval on, so nearly every item joins the end of the queue and
/// leaves from its front without any sifting (at 10,000 sessions the
/// heap's sifting alone took a tenth of the tick path). An item due before
/// the end of the queue (another interval, a new session, a skipped tick)
/// goes to the heap; the earlier of the two fronts is next.
///
/// Items name a session by its slot in the engine's `SessionTable`: plain
/// integers, so that moving them costs no reference counting.
/// Items are never removed in place: a session that stops or changes its
/// interval gets a new due time, and the stale item is skipped when it
/// surfaces (the engine compares its due time with the session's).
public struct TickScheduler: Sendable {
    /// Ordered by due time, then by slot.
    public struct Item: Sendable, Comparable {
        public let due: UInt64
        public let slot: Int

        public static func < (left: Item, right: Item) -> Bool {
            (left.due, left.slot) < (right.due, right.slot)
        }
    }

    /// The queue: `queueCount` items from `queueHead` on, in due order, in
    /// a ring (its count a power of two, or 0). A ring, not an array with
    /// a moving start: dropping the items that had left moved half the
    /// queue every other wake-up, about 1 % of a tick's instructions.
    private var ring: [Item] = []
    private var queueHead = 0
    private var queueCount = 0
    private var heap: [Item] = []

    public init() {}

    public var count: Int { queueCount + heap.count }
    public var earliest: UInt64? { peek()?.due }

    public func peek() -> Item? {
        isQueueNext ? ring[queueHead] : heap.first
    }

    /// The queue's front is the earliest item (on a tie, the queue goes first).
    private var isQueueNext: Bool {
        guard queueCount > 0 else { return false }
        guard let top = heap.first else { return true }
        return ring[queueHead].due <= top.due
    }

    public mutating func schedule(_ slot: Int, at due: UInt64) {
        let item = Item(due: due, slot: slot)
        if queueCount == 0 || ring[(queueHead &+ queueCount &- 1) & (ring.count &- 1)].due <= due {
            if queueCount == ring.count { growRing() }
            ring[(queueHead &+ queueCount) & (ring.count &- 1)] = item
            queueCount &+= 1
        } else {
            heap.append(item)
            siftUp(heap.count - 1)
        }
    }

    /// Removes and returns the earliest item if it is due by `deadline`.
    public mutating func popDue(by deadline: UInt64) -> Item? {
        guard let first = peek(), first.due <= deadline else { return nil }
        if isQueueNext {
            queueHead = (queueHead &+ 1) & (ring.count &- 1)
            queueCount &-= 1
        } else {
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
        return first
    }

    /// Drops every stale item; called when stale ones outnumber live ones.
    public mutating func rebuild(keeping isCurrent: (Item) -> Bool) {
        let kept = queuedItems.filter(isCurrent)
        queueHead = 0
        queueCount = 0
        for item in kept {
            ring[queueCount] = item
            queueCount += 1
        }
        heap = heap.filter(isCurrent)
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// The queue's items, in order.
    private var queuedItems: [Item] {
        (0..<queueCount).map { ring[(queueHead + $0) & (ring.count - 1)] }
    }

    /// Twice the room (64 at first), the queue's items in order from 0.
    private mutating func growRing() {
        var larger = queuedItems
        larger.append(contentsOf: repeatElement(Item(due: 0, slot: 0), count: max(64, ring.count * 2) - queueCount))
        ring = larger
        queueHead = 0
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
