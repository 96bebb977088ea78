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

    private var queue: [Item] = []
    /// Items before this index in `queue` have left it.
    private var queueStart = 0
    private var heap: [Item] = []

    public init() {}

    public var count: Int { queue.count - queueStart + heap.count }
    public var earliest: UInt64? { peek()?.due }

    public func peek() -> Item? {
        isQueueNext ? queue[queueStart] : heap.first
    }

    /// The queue's front is the earliest item (on a tie, the queue goes first).
    private var isQueueNext: Bool {
        guard queueStart < queue.count else { return false }
        guard let top = heap.first else { return true }
        return queue[queueStart].due <= top.due
    }

    public mutating func schedule(_ slot: Int, at due: UInt64) {
        let item = Item(due: due, slot: slot)
        if queueStart == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueStart = 0
        }
        if queue.last.map({ $0.due <= due }) ?? true {
            queue.append(item)
        } else {
            heap.append(item)
            siftUp(heap.count - 1)
        }
    }

    /// Removes and returns the earliest item if it is due by `deadline`.
    public mutating func popDue(by deadline: UInt64) -> Item? {
        guard let first = peek(), first.due <= deadline else { return nil }
        if isQueueNext {
            queueStart += 1
            // Drop the items that left once they are most of the array.
            if queueStart >= 1024 && queueStart * 2 >= queue.count {
                queue.removeFirst(queueStart)
                queueStart = 0
            }
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
        queue = queue[queueStart...].filter(isCurrent)
        queueStart = 0
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
