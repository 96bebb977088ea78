import Testing

@testable import MonkeyCore

/// Typed entries gathered for the journal: records sealed when large or
/// when handed over.
struct JournalBatchTests {
    /// Entries of sessions "a" and "b", alternating, with texts of 0 to 40 bytes.
    static func typed(_ count: Int) -> [(SessionName, Entry)] {
        var random = WyRand(seed: 11)
        let names = [SessionName("a"), SessionName("b")].compactMap { $0 }
        return (0..<count).map { index in
            let text = String(repeating: "x", count: Int(random.next() % 41))
            return (
                names[index % 2],
                Entry(id: UInt64(index + 1), number: UInt64(index + 1), text: text, isHit: index % 7 == 0)
            )
        }
    }

    static func decoded(_ batch: JournalBatch) -> JournalContents {
        JournalFile.decode(JournalFile.header + batch.records.bytes)
    }

    /// The starts of the records in `bytes`, found by their length fields.
    static func recordLengths(_ bytes: ArraySlice<UInt8>) -> [Int] {
        var lengths: [Int] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let length = bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            lengths.append(JournalFile.recordHeaderLength + length)
            offset += JournalFile.recordHeaderLength + length
        }
        return lengths
    }

    @Test func aLargeBatchIsSealedInRecordsOfAboutTheLimit() throws {
        let typed = Self.typed(150_000)
        var batch = JournalBatch()
        for (name, entry) in typed { batch.append(entry, session: name, epoch: 3) }
        batch.seal()
        let lengths = Self.recordLengths(batch.records.bytes)
        #expect(lengths.count == (batch.count + JournalFile.entriesRecordLimit - 1) / JournalFile.entriesRecordLimit)
        #expect(
            lengths.dropLast().allSatisfy {
                $0 >= JournalFile.entriesRecordLimit && $0 < JournalFile.entriesRecordLimit + 64
            })
        let contents = Self.decoded(batch)
        #expect(contents.damage == nil)
        for name in [SessionName("a"), SessionName("b")].compactMap({ $0 }) {
            // Compared whole but reported short: a failure would print 75,000 entries.
            let isIntact = contents.entries[SessionEpoch(name, 3)] == typed.filter { $0.0 == name }.map(\.1)
            #expect(isIntact, "the entries of \(name)")
        }
    }

    /// An entry whose every integer takes its most bytes, of a session
    /// with the longest name, is written into the room the batch makes for
    /// it (the longest integers), reads back whole, and its place holds
    /// the length it took.
    @Test func theLongestEntryFitsItsRoomAndItsPlaceSaysItsLength() throws {
        let name = try #require(SessionName(String(repeating: "n", count: SessionName.maximumLength)))
        let entry = Entry(id: .max, number: .max - 1, text: String(repeating: "t", count: 200), isHit: true)
        var batch = JournalBatch()
        batch.append(entry, session: name, epoch: .max)
        let places = try #require(batch.places)
        let headerEnd = JournalFile.recordHeaderLength + 1
        // The name's length, the name, the epoch, the count, id, number, the flag, the text's length, the text.
        let length = 1 + 64 + 10 + 1 + 10 + 10 + 1 + 2 + 200
        #expect(places.count == 1 && EntryPlace.offset(places[0]) == headerEnd)
        #expect(EntryPlace.length(places[0]) == length && batch.count == headerEnd + length)
        batch.seal()
        #expect(Self.decoded(batch).entries == [SessionEpoch(name, .max): [entry]])
    }

    /// A batch made from the last sync's keeps its records' and places'
    /// memory, and starts empty: no record open, every entry placed.
    @Test func aBatchReusesTheMemoryOfTheOneBefore() throws {
        let name = try #require(SessionName("s"))
        var spare = JournalBatch()
        for id in UInt64(1)...1_000 {
            spare.append(Entry(id: id, number: id, text: "a", isHit: false), session: name, epoch: 3)
        }
        try JournalGroupingTests.withGroup(of: "s", epoch: 3) {
            spare.append(groups: $0, at: [EntryPlace.place(key: 0, length: $0.count, offset: 0)])
        }
        #expect(spare.places == nil)
        let recordsBefore = spare.records.bytes.withUnsafeBytes { $0.baseAddress }
        var batch = JournalBatch(reusing: consume spare)
        #expect(batch.isEmpty && batch.places == [])
        batch.append(Entry(id: 1_001, number: 1_001, text: "q", isHit: false), session: name, epoch: 3)
        #expect(batch.records.bytes.withUnsafeBytes { $0.baseAddress } == recordsBefore)
        let places = try #require(batch.places)
        #expect(places.count == 1 && places.capacity >= 1_000)
        batch.seal()
        #expect(
            Self.decoded(batch).entries == [
                SessionEpoch(name, 3): [Entry(id: 1_001, number: 1_001, text: "q", isHit: false)]
            ])
    }
}
