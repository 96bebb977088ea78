import Testing

@testable import MonkeyCore

/// The log's chunks, checked against a plain array of what it should hold.
struct EntryLogChunkTests {
    /// Entries whose texts are short, exactly seven bytes, long and multi-byte.
    static func entry(_ id: UInt64) -> Entry {
        let texts = ["q", "abcdefg", "abcdefgh", "héllo", "日本語", String(repeating: "ж", count: 40), ""]
        return Entry(id: id, number: id * 3, text: texts[Int(id % 7)], isHit: id % 5 == 0)
    }

    @Test(arguments: [1, 2, 7, 8, 9, 16, 17, 100])
    func everyAppendKeepsTheNewestInOrder(capacity: Int) {
        var log = EntryLog(capacity: capacity)
        var expected: [Entry] = []
        // Past 64 dropped chunks, so that dropped slots are also removed in bulk.
        for id in UInt64(1)...UInt64(64 * EntryChunk.size + 3 * capacity + 5) {
            let dropped = log.append(Self.entry(id))
            expected.append(Self.entry(id))
            #expect(dropped == (expected.count > capacity))
            if expected.count > capacity { expected.removeFirst() }
            #expect(log.count == expected.count && log.newest == expected.last && log.oldest == expected.first)
            if id % 13 == 0 || id < 40 {
                #expect((0..<log.count).map { log[$0] } == expected, "after entry \(id)")
            }
        }
    }

    @Test(arguments: [
        "", "a", "abcdefg", "abcdefgh", "héllo", "ééééé", "日本語", "🐒🐒", "\u{0}x", String(repeating: "xyz", count: 30),
    ])
    func textsComeBackAsTyped(text: String) {
        var log = EntryLog(capacity: 20)
        for id in UInt64(1)...12 {
            log.append(Entry(id: id, number: id, text: id % 2 == 0 ? text : "ab", isHit: id % 4 == 0))
        }
        for position in 0..<log.count {
            let id = UInt64(position + 1)
            #expect(log[position] == Entry(id: id, number: id, text: id % 2 == 0 ? text : "ab", isHit: id % 4 == 0))
        }
    }

    /// Every inline length, with bytes that differ in each place and use
    /// every bit: the word holds them in order, and nothing else.
    @Test(arguments: 0...PackedEntry.inlineCapacity)
    func aPackedTextHoldsItsBytesInOrder(length: Int) {
        let bytes = Array([UInt8]([0x01, 0xFF, 0x80, 0x7F, 0x10, 0xC3, 0x42]).prefix(length))
        let expected = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        // Read from the middle of a longer buffer: no byte beside the text counts.
        let around: [UInt8] = [0xAA] + bytes + [0xBB]
        around.withUnsafeBufferPointer { buffer in
            #expect(PackedEntry.word(of: UnsafeBufferPointer(rebasing: buffer[1..<(1 + length)])) == expected)
        }
        let text = String("abcdefg".prefix(length))
        var log = EntryLog(capacity: 4)
        _ = text.utf8.withContiguousStorageIfAvailable { log.append(id: 9, number: 2, isHit: true, text: $0) }
        #expect(log.newest == Entry(id: 9, number: 2, text: text, isHit: true))
    }

    /// The tick path brings in one slot of the chunk being filled, found
    /// by `fillingSlots`: they lie within the log, eight of them.
    @Test func theFillingSlotsLieInTheLog() {
        let slots = EntryLog.fillingSlots
        #expect(slots.count == EntryChunk.size * MemoryLayout<PackedEntry>.stride)
        #expect(slots.lowerBound >= 0 && slots.upperBound <= MemoryLayout<EntryLog>.size)
        var log = EntryLog(capacity: 20)
        #expect(log.nextSlot == 0)
        for id in UInt64(1)...8 { log.append(Self.entry(id)) }
        #expect(log.nextSlot == nil, "a full chunk moves before the next append")
        log.append(Self.entry(9))
        #expect(log.nextSlot == 1)
    }

    @Test(arguments: [3, 8, 11])
    func aCopyKeepsWhatItHeld(count: Int) {
        var original = EntryLog(capacity: 10)
        for id in UInt64(1)...UInt64(count) { original.append(Self.entry(id)) }
        var copy = original
        let before = (0..<original.count).map { original[$0] }
        copy.append(Self.entry(100))
        #expect((0..<original.count).map { original[$0] } == before, "writing the copy left the original alone")
        original.append(Self.entry(200))
        #expect(copy.newest == Self.entry(100) && original.newest == Self.entry(200))
        #expect((0..<copy.count - 1).map { copy[$0] } == Array(before.suffix(copy.count - 1)))
    }

    @Test func capacityChangesAcrossChunks() {
        var log = EntryLog(capacity: 30)
        for id in UInt64(1)...45 { log.append(Self.entry(id)) }
        log.setCapacity(11)
        #expect((0..<log.count).map { log[$0] } == (35...45).map { Self.entry($0) })
        log.setCapacity(20)
        for id in UInt64(46)...60 { log.append(Self.entry(id)) }
        #expect((0..<log.count).map { log[$0] } == (41...60).map { Self.entry($0) })
    }
}
