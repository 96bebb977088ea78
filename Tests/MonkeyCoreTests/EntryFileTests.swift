import Testing

@testable import MonkeyCore

/// The entries file: checksummed runs of entries that survive torn writes
/// and flipped bytes by being cut, never by crashing or inventing entries.
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

    /// A file of a run per entry, and the byte offsets at which each run ends.
    func runOfEach(_ entries: [Entry]) -> (bytes: [UInt8], ends: [Int]) {
        var ends: [Int] = []
        var bytes = EntryFile.preamble(epoch: 7)
        for entry in entries {
            EntryFile.appendRecord(entry, to: &bytes)
            ends.append(bytes.count)
        }
        return (bytes, ends)
    }

    @Test func cuttingAtEveryByteKeepsExactlyTheWholeRuns() {
        let (bytes, ends) = runOfEach(Self.entries)
        for length in 0...bytes.count {
            let contents = EntryFile.decode(Array(bytes[..<length]), keepingLast: 100)
            let whole = ends.filter { $0 <= length }.count
            #expect(contents.entries == Array(Self.entries.prefix(whole)), "cut at \(length)")
            let boundary = length == 0 || length == EntryFile.preambleLength || ends.contains(length)
            #expect((contents.damage == nil) == boundary, "cut at \(length)")
            #expect(contents.validLength <= length && (!boundary || contents.validLength == length))
        }
    }

    /// A run is taken whole or not at all: cut anywhere inside, none of
    /// its entries is kept.
    @Test func aRunOfManyIsTakenWhole() {
        let bytes = EntryFile.encode(Self.entries, epoch: 7)
        for length in (EntryFile.preambleLength + 1)..<bytes.count {
            let contents = EntryFile.decode(Array(bytes[..<length]), keepingLast: 100)
            #expect(contents.entries.isEmpty && contents.damage != nil, "cut at \(length)")
            #expect(contents.validLength == EntryFile.preambleLength && contents.recordCount == 0)
        }
    }

    @Test func flippingAnyByteNeverYieldsAWrongEntry() {
        let (bytes, ends) = runOfEach(Self.entries)
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

    /// Entries that go backwards are cut with their whole run: in a run of
    /// their own, or inside a run with entries that follow.
    @Test func entriesThatGoBackwardsAreCut() {
        let good = EntryFile.encode(Self.entries.prefix(2), epoch: 7)
        let backwards = Entry(id: 2, number: 3, text: "x", isHit: false)
        for run in [[backwards], [Entry(id: 3, number: 3, text: "y", isHit: false), backwards]] {
            let contents = EntryFile.decode(good + EntryFile.records(run), keepingLast: 100)
            #expect(contents.entries == Array(Self.entries.prefix(2)))
            #expect(contents.damage == .outOfOrder(offset: good.count) && contents.validLength == good.count)
            #expect(contents.recordCount == 2)
        }
    }

    @Test func anImpossibleLengthIsDamageNotAnAllocation() {
        var bytes = EntryFile.encode(Self.entries.prefix(1), epoch: 7)
        let end = bytes.count
        bytes += [0xFF, 0xFF, 0xFF, 0x7F] + [UInt8](repeating: 0, count: 30)
        let contents = EntryFile.decode(bytes, keepingLast: 100)
        #expect(contents.entries.count == 1)
        #expect(contents.damage == .badLength(offset: end))
    }

    /// A run whose checksum holds but whose entries do not fit it (no
    /// writer makes one) is damage too.
    @Test func aRunThatIsNotWholeEntriesIsDamage() {
        let good = EntryFile.encode(Self.entries.prefix(1), epoch: 7)
        var run = EntryFile.records(Self.entries.suffix(1))
        // The text's length says one byte more than the run holds.
        run.removeLast()
        run.withUnsafeMutableBytes { SealedRecord.seal($0) }
        let contents = EntryFile.decode(good + run, keepingLast: 100)
        #expect(contents.entries == Array(Self.entries.prefix(1)))
        #expect(contents.damage == .checksumMismatch(offset: good.count))
    }

    /// Files of format version 2 hold a record per entry.
    @Test func aFileOfVersion2IsRead() {
        var bytes = EntryFile.headerVersion2 + RecordLayoutTests.littleEndian(UInt64(7))
        for entry in Self.entries { bytes += version2Record(entry) }
        let contents = EntryFile.decode(bytes, keepingLast: 2, keepingFromID: 6)
        #expect(contents.entries == Array(Self.entries.suffix(2)) && contents.epoch == 7 && contents.damage == nil)
        #expect(contents.version == 2 && contents.recordCount == 5 && contents.validLength == bytes.count)
    }

    /// Files of the first release have no epoch: their entries are of epoch 0.
    @Test func aFileOfTheFirstReleaseIsOfEpochZero() {
        var bytes = EntryFile.headerVersion1
        for entry in Self.entries { bytes += version2Record(entry) }
        let contents = EntryFile.decode(bytes, keepingLast: 100)
        #expect(contents.entries == Self.entries && contents.epoch == 0 && contents.damage == nil)
        #expect(contents.preambleLength == 8 && contents.validLength == bytes.count && contents.version == 1)
    }
}
