import Testing

@testable import MonkeyCore

struct TickSchedulerTests {
    @Test(arguments: [1, 2, 3, 10, 257] as [UInt64])
    func popsInDueOrder(seed: UInt64) throws {
        var random = WyRand(seed: seed)
        var scheduler = TickScheduler()
        var dues: [UInt64] = []
        for index in 0..<200 {
            let due = random.next(below: 1_000)
            dues.append(due)
            scheduler.schedule(index, at: due)
        }
        #expect(scheduler.count == 200)
        #expect(scheduler.earliest == dues.min())
        var popped: [UInt64] = []
        while let item = scheduler.popDue(by: .max) { popped.append(item.due) }
        #expect(popped == dues.sorted())
        #expect(scheduler.count == 0 && scheduler.earliest == nil)
    }

    @Test func respectsTheDeadline() throws {
        var scheduler = TickScheduler()
        for due: UInt64 in [30, 10, 50, 20, 40] {
            scheduler.schedule(Int(due), at: due)
        }
        #expect(scheduler.popDue(by: 9) == nil)
        #expect(scheduler.count == 5)
        var popped: [Int] = []
        while let item = scheduler.popDue(by: 30) { popped.append(item.slot) }
        #expect(popped == [10, 20, 30])
        #expect(scheduler.earliest == 40)
        #expect(scheduler.popDue(by: 39) == nil)
        #expect(scheduler.popDue(by: 40)?.slot == 40)
    }

    @Test func itemsOrderByDueThenSlot() throws {
        let items = [(5, 2), (5, 1), (3, 9), (5, 1)].map { TickScheduler.Item(due: $0.0, slot: $0.1) }
        #expect(items.sorted().map(\.slot) == [9, 1, 1, 2])
        #expect(!items.isInIncreasingOrder)
        #expect(items.sorted().isInIncreasingOrder)
        #expect([TickScheduler.Item]().isInIncreasingOrder && [items[0]].isInIncreasingOrder)
    }

    @Test func sameSessionMayBeScheduledTwice() throws {
        var scheduler = TickScheduler()
        let a = 7
        scheduler.schedule(a, at: 5)
        scheduler.schedule(a, at: 3)
        #expect(scheduler.popDue(by: 10)?.due == 3)
        #expect(scheduler.popDue(by: 10)?.due == 5)
    }

    @Test(arguments: [4, 5, 6] as [UInt64])
    func rebuildKeepsOnlyCurrentItemsInOrder(seed: UInt64) throws {
        var random = WyRand(seed: seed)
        var scheduler = TickScheduler()
        var current: [Int: UInt64] = [:]
        for round in 0..<5 {
            for index in 0..<40 {
                // Distinct residues per round, so that no two items tie.
                let due = random.next(below: 10_000) * 8 + UInt64(round)
                scheduler.schedule(index, at: due)
                current[index] = due
            }
        }
        // Sessions with an odd index stopped: nothing of theirs is current.
        for index in stride(from: 1, to: 40, by: 2) { current[index] = nil }
        #expect(scheduler.count == 200)
        scheduler.rebuild { current[$0.slot] == $0.due }
        #expect(scheduler.count == current.count)
        var popped: [(Int, UInt64)] = []
        while let item = scheduler.popDue(by: .max) { popped.append((item.slot, item.due)) }
        #expect(popped.map(\.1) == current.values.sorted())
        #expect(Set(popped.map(\.0)) == Set(current.keys))
    }
}

/// The queue beside the heap: items scheduled in due order skip the heap,
/// and whatever the mix, items come out in due order.
struct TickSchedulerQueueTests {
    /// Many sessions of one interval, rescheduled one interval on as they
    /// pop, with now and then a session of another interval or a new one.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func aMixOfInOrderAndOutOfOrderItemsPopsInDueOrder(seed: UInt64) {
        var random = WyRand(seed: seed)
        var scheduler = TickScheduler()
        var expected: [Int: UInt64] = [:]
        for slot in 0..<300 {
            let due = random.next(below: 100)
            scheduler.schedule(slot, at: due)
            expected[slot] = due
        }
        var last: UInt64 = 0
        var popped = 0
        while popped < 5_000, let item = scheduler.popDue(by: .max) {
            #expect(item.due >= last, "popped \(item.due) after \(last)")
            #expect(expected[item.slot] == item.due)
            last = item.due
            popped += 1
            // Most go one interval on; some jump ahead or fall back a little.
            let step: UInt64 =
                switch random.next(below: 10) {
                case 0: 1 + random.next(below: 500)
                case 1: 1 + random.next(below: 20)
                default: 100
                }
            scheduler.schedule(item.slot, at: item.due + step)
            expected[item.slot] = item.due + step
        }
        #expect(popped == 5_000)
        #expect(scheduler.count == 300)
    }

    @Test func peekAndPopAgreeOnTies() {
        var scheduler = TickScheduler()
        scheduler.schedule(1, at: 10)
        scheduler.schedule(2, at: 20)
        scheduler.schedule(3, at: 10)  // before the queue's end: the heap
        for _ in 0..<3 {
            let peeked = scheduler.peek()
            #expect(scheduler.popDue(by: .max) == peeked)
        }
        #expect(scheduler.count == 0 && scheduler.peek() == nil)
    }

    @Test func aLongQueueDropsWhatLeftItAndKeepsOrder() {
        var scheduler = TickScheduler()
        for index in 0..<5_000 { scheduler.schedule(index, at: UInt64(index)) }
        for index in 0..<4_000 { #expect(scheduler.popDue(by: .max)?.slot == index) }
        for index in 5_000..<6_000 { scheduler.schedule(index, at: UInt64(index)) }
        #expect(scheduler.count == 2_000)
        var slots: [Int] = []
        while let item = scheduler.popDue(by: .max) { slots.append(item.slot) }
        #expect(slots == Array(4_000..<6_000))
    }

    /// The queue is a ring: it grows while its items wrap around its end,
    /// and a rebuild of a wrapped ring keeps only the current ones, in order.
    @Test func theRingGrowsAndRebuildsWhileWrappedAndKeepsOrder() {
        var scheduler = TickScheduler()
        for index in 0..<64 { scheduler.schedule(index, at: UInt64(index)) }
        for index in 0..<10 { #expect(scheduler.popDue(by: .max)?.slot == index) }
        // Ten wrap around the ring's end; the eleventh finds it full.
        for index in 64..<100 { scheduler.schedule(index, at: UInt64(index)) }
        for index in 10..<50 { #expect(scheduler.popDue(by: .max)?.slot == index) }
        // Wrapped again when the rebuild comes.
        for index in 100..<150 { scheduler.schedule(index, at: UInt64(index)) }
        #expect(scheduler.count == 100)
        scheduler.rebuild { $0.slot % 3 != 0 }
        var slots: [Int] = []
        while let item = scheduler.popDue(by: .max) { slots.append(item.slot) }
        #expect(slots == (50..<150).filter { $0 % 3 != 0 })
        #expect(scheduler.count == 0 && scheduler.peek() == nil)
    }
}
