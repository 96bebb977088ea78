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
