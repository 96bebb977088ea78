import Testing

@testable import MonkeyCore

/// The entries file: checksummed records that survive torn writes and
/// flipped bytes by being cut, never by crashing or inventing entries.
struct EntryFileTests {
    static let entries: [Entry] = [
        Entry(id: 1, number: 1, text: "abc", isHit: false),
        Entry(id: 2, number: 2, text: "to be", isHit: true),
        Entry(id: 5, number: 3, text: "", isHit: false),
        Entry(id: 6, number: 4, text: "żółw ✓ \u{1F412}", isHit: false),
        Entry(id: 9, number: 9, text: String(repeating: "q", count: 300), isHit: true),
    ]

    @Test func recordsRoundTrip() {
        let bytes = EntryFile.encode(Self.entries, epoch: 7)
        let contents = EntryFile.decode(bytes, keepingLast: 100)
        #expect(contents.entries == Self.entries)
        #expect(contents.recordCount == Self.entries.count)
        #expect(contents.validLength == bytes.count)
        #expect(contents.damage == nil)
    }

    @Test func anEmptyOrHeaderOnlyFileIsClean() {
        #expect(EntryFile.decode([], keepingLast: 10) == EntryFileContents())
        let headerOnly = EntryFile.decode(EntryFile.preamble(epoch: 7), keepingLast: 10)
        #expect(headerOnly.entries.isEmpty && headerOnly.damage == nil && headerOnly.epoch == 7)
        #expect(headerOnly.validLength == EntryFile.preambleLength)
    }

    @Test(arguments: [(1, UInt64.max, [9]), (2, UInt64.max, [6, 9]), (1, 5, [5, 6, 9]), (0, 100, [])])
    func keepsTheLastEntriesAndThoseFromAnID(last: Int, fromID: UInt64, ids: [UInt64]) {
        let contents = EntryFile.decode(
            EntryFile.encode(Self.entries, epoch: 7), keepingLast: last, keepingFromID: fromID)
        #expect(contents.entries.map(\.id) == ids)
        #expect(contents.recordCount == Self.entries.count)
    }

    /// The byte offsets at which each record ends.
    func recordEnds(_ entries: [Entry]) -> [Int] {
        var ends: [Int] = []
        var bytes = EntryFile.preamble(epoch: 7)
        for entry in entries {
            EntryFile.appendRecord(entry, to: &bytes)
            ends.append(bytes.count)
        }
        return ends
    }

    @Test func cuttingAtEveryByteKeepsExactlyTheWholeRecords() {
        let bytes = EntryFile.encode(Self.entries, epoch: 7)
        let ends = recordEnds(Self.entries)
        for length in 0...bytes.count {
            let contents = EntryFile.decode(Array(bytes[..<length]), keepingLast: 100)
            let whole = ends.filter { $0 <= length }.count
            #expect(contents.entries == Array(Self.entries.prefix(whole)), "cut at \(length)")
            let boundary = length == 0 || length == EntryFile.preambleLength || ends.contains(length)
            #expect((contents.damage == nil) == boundary, "cut at \(length)")
            #expect(contents.validLength <= length && (!boundary || contents.validLength == length))
        }
    }

    @Test func flippingAnyByteNeverYieldsAWrongEntry() {
        let bytes = EntryFile.encode(Self.entries, epoch: 7)
        let ends = recordEnds(Self.entries)
        // The epoch (bytes 8 to 15) is not checksummed: a damaged one makes
        // the file another epoch's, whose entries no session takes.
        for position in 0..<bytes.count where !(8..<16).contains(position) {
            for pattern: UInt8 in [0x01, 0x80, 0xFF, 0x5A] {
                var damaged = bytes
                damaged[position] ^= pattern
                let contents = EntryFile.decode(damaged, keepingLast: 100)
                let recordIndex = ends.firstIndex { position < $0 } ?? 0
                let kept = position < EntryFile.preambleLength ? 0 : recordIndex
                #expect(contents.entries == Array(Self.entries.prefix(kept)), "flip \(pattern) at \(position)")
                #expect(contents.damage != nil, "flip \(pattern) at \(position)")
            }
        }
    }

    @Test func recordsThatGoBackwardsAreCut() {
        var bytes = EntryFile.encode(Self.entries.prefix(2), epoch: 7)
        EntryFile.appendRecord(Entry(id: 2, number: 3, text: "x", isHit: false), to: &bytes)
        let contents = EntryFile.decode(bytes, keepingLast: 100)
        #expect(contents.entries == Array(Self.entries.prefix(2)))
        #expect(contents.damage == .outOfOrder(offset: recordEnds(Self.entries)[1]))
    }

    @Test func anImpossibleLengthIsDamageNotAnAllocation() {
        var bytes = EntryFile.encode(Self.entries.prefix(1), epoch: 7)
        bytes += [0xFF, 0xFF, 0xFF, 0x7F] + [UInt8](repeating: 0, count: 30)
        let contents = EntryFile.decode(bytes, keepingLast: 100)
        #expect(contents.entries.count == 1)
        #expect(contents.damage == .badLength(offset: recordEnds(Self.entries)[0]))
    }

    /// Files of the first release have no epoch: their entries are of epoch 0.
    @Test func aFileOfTheFirstReleaseIsOfEpochZero() {
        var bytes = EntryFile.headerVersion1
        for entry in Self.entries { EntryFile.appendRecord(entry, to: &bytes) }
        let contents = EntryFile.decode(bytes, keepingLast: 100)
        #expect(contents.entries == Self.entries && contents.epoch == 0 && contents.damage == nil)
        #expect(contents.preambleLength == 8 && contents.validLength == bytes.count)
    }
}
