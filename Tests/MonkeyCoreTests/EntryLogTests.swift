import Testing

@testable import MonkeyCore

/// A log holding entries with the given ids (numbered from 1).
func makeLog(capacity: Int, ids: [UInt64]) -> EntryLog {
    var log = EntryLog(capacity: capacity)
    for (offset, id) in ids.enumerated() {
        log.append(Entry(id: id, number: UInt64(offset + 1), text: "t\(id)", isHit: false))
    }
    return log
}

func ids(_ log: EntryLog) -> [UInt64] { (0..<log.count).map { log[$0].id } }

struct EntryLogTests {
    @Test func appendReportsDropsAndKeepsNewest() {
        var log = EntryLog(capacity: 3)
        #expect(log.isEmpty && log.newest == nil && log.oldest == nil)
        let dropped = (1...7).map { log.append(Entry(id: $0, number: $0, text: "", isHit: false)) }
        #expect(dropped == [false, false, false, true, true, true, true])
        #expect(ids(log) == [5, 6, 7])
        #expect((0..<log.count).map { log[$0].number } == [5, 6, 7], "dropping never renumbers")
        #expect(log.oldest?.id == 5 && log.newest?.id == 7)
        #expect(log.capacity == 3)
    }

    @Test(arguments: 1...12)
    func orderHoldsAtEveryWrapPosition(count: Int) {
        let log = makeLog(capacity: 5, ids: (1...UInt64(count)).map { $0 * 2 })
        let kept = (max(1, count - 4)...count).map { UInt64($0) * 2 }
        #expect(ids(log) == kept)
    }

    @Test func removeAllEmptiesAndStaysUsable() {
        var log = makeLog(capacity: 2, ids: [1, 2, 3])
        log.removeAll()
        #expect(log.isEmpty)
        log.append(Entry(id: 4, number: 1, text: "", isHit: false))
        #expect(ids(log) == [4])
    }

    @Test func capacityChangesKeepTheNewest() {
        var log = makeLog(capacity: 4, ids: [1, 2, 3, 4, 5, 6])
        log.setCapacity(2)
        #expect(ids(log) == [5, 6] && log.capacity == 2)
        log.setCapacity(4)
        log.append(Entry(id: 7, number: 7, text: "", isHit: false))
        log.append(Entry(id: 8, number: 8, text: "", isHit: false))
        #expect(ids(log) == [5, 6, 7, 8])
        log.append(Entry(id: 9, number: 9, text: "", isHit: false))
        #expect(ids(log) == [6, 7, 8, 9])
    }

    @Test(
        arguments: [
            (0, 0), (1, 0), (2, 1), (3, 1), (9, 4), (10, 5), (11, 5), (.max, 5),
        ] as [(UInt64, Int)])
    func positionAfterID(id: UInt64, position: Int) {
        // Ids with gaps, as after a crash or retention.
        let log = makeLog(capacity: 10, ids: [2, 4, 6, 8, 10])
        #expect(log.position(afterID: id) == position)
    }

    @Test(
        arguments: [
            (nil, nil, 0..<5), (nil, 2, 3..<5), (nil, 0, 5..<5), (nil, 99, 0..<5),
            (4, nil, 2..<5), (4, 1, 4..<5), (4, 10, 2..<5), (10, nil, 5..<5), (10, 3, 5..<5), (0, 2, 3..<5),
            (1, nil, 0..<5),
        ] as [(UInt64?, Int?, Range<Int>)])
    func positionsForQueries(after: UInt64?, last: Int?, expected: Range<Int>) {
        let log = makeLog(capacity: 10, ids: [2, 4, 6, 8, 10])
        #expect(log.positions(afterID: after, last: last) == expected)
    }

    @Test func positionsAfterWrapping() {
        let log = makeLog(capacity: 3, ids: [1, 2, 3, 4, 5])
        #expect(log.positions(afterID: 1, last: nil) == 0..<3)
        #expect(log.positions(afterID: 3, last: nil) == 1..<3)
        #expect(log.positions(afterID: 4, last: nil) == 2..<3)
        #expect(log.positions(afterID: nil, last: 1) == 2..<3)
        #expect(log[log.position(afterID: 3)].id == 4)
    }
}
