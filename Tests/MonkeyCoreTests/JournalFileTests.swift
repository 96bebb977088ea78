import Testing

@testable import MonkeyCore

/// The entries journal: every session's entries by epoch in sync order,
/// journals of the first release (epoch 0, fresh starts that drop a
/// session's earlier entries), and a torn or corrupt tail cut at the last
/// good record.
struct JournalFileTests {
    static func name(_ text: String) throws -> SessionName {
        try #require(SessionName(text))
    }

    /// Sessions "a" (epoch 4) and "b" (epoch 5).
    static func key(_ text: String) throws -> SessionEpoch {
        SessionEpoch(try name(text), text == "a" ? 4 : 5)
    }

    /// Journal records: one sealed entries record per inner array.
    static func records(_ batches: [[(String, Entry)]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entries in batches {
            var batch = JournalBatch()
            for (session, entry) in entries {
                if let name = SessionName(session) { batch.append(entry, session: name, epoch: session == "a" ? 4 : 5) }
            }
            batch.seal()
            bytes += batch.records.bytes
        }
        return bytes
    }

    /// A record as the first release wrote it: entries without epochs.
    static func firstReleaseRecord(_ entries: [(String, Entry)]) -> [UInt8] {
        earlierRecord(entries, epoch: nil)
    }

    /// A record as format version 3 wrote it: each entry with its session's
    /// name and epoch (4 for a, 5 for the others).
    static func versionThreeRecord(_ entries: [(String, Entry)]) -> [UInt8] {
        earlierRecord(entries) { $0 == "a" ? 4 : 5 }
    }

    /// An entries record of a format before groups: each entry with its
    /// session's name, and from version 3 on (`epoch` given) its epoch.
    private static func earlierRecord(_ entries: [(String, Entry)], epoch: ((String) -> UInt64)?) -> [UInt8] {
        var record = [UInt8](repeating: 0, count: JournalFile.recordHeaderLength) + [3]
        for (session, entry) in entries {
            record.append(UInt8(session.utf8.count))
            record += session.utf8
            if let epoch { VarInt.append(epoch(session), to: &record) }
            VarInt.append(entry.id, to: &record)
            VarInt.append(entry.number, to: &record)
            record.append(entry.isHit ? 1 : 0)
            VarInt.append(UInt64(entry.text.utf8.count), to: &record)
            record += entry.text.utf8
        }
        record.withUnsafeMutableBytes { SealedRecord.seal($0) }
        return record
    }

    /// A fresh start, as the first release marked a CLEAR or a DELETE.
    static func freshStart(_ session: String) -> [UInt8] {
        var record = [UInt8](repeating: 0, count: JournalFile.recordHeaderLength) + [2, UInt8(session.utf8.count)]
        record += session.utf8
        record.withUnsafeMutableBytes { SealedRecord.seal($0) }
        return record
    }

    static func journal(_ batches: [[(String, Entry)]]) -> [UInt8] {
        JournalFile.header + records(batches)
    }

    static let a1 = Entry(id: 1, number: 1, text: "abc", isHit: false)
    static let b1 = Entry(id: 1, number: 1, text: "żółw ✓", isHit: true)
    static let a2 = Entry(id: 2, number: 2, text: "", isHit: false)
    static let b2 = Entry(id: 7, number: 2, text: String(repeating: "q", count: 300), isHit: false)
    static let a3 = Entry(id: UInt64.max, number: 1 << 63, text: "z", isHit: true)
    static let interleaved = [("a", a1), ("b", b1), ("a", a2), ("b", b2), ("a", a3)]
    /// The same entries in three records.
    static let batches = [Array(interleaved[0..<1]), Array(interleaved[1..<4]), Array(interleaved[4...])]

    @Test func entriesComeBackBySessionInOrder() throws {
        let bytes = Self.journal(Self.batches)
        let contents = JournalFile.decode(bytes)
        #expect(contents.damage == nil)
        #expect(contents.validLength == bytes.count)
        #expect(
            contents.entries == [
                try Self.key("a"): [Self.a1, Self.a2, Self.a3], try Self.key("b"): [Self.b1, Self.b2],
            ])
        #expect(contents.version == 4)
    }

    /// A journal of the release before groups is read as it was written;
    /// a record of that format in a journal of this one is damage.
    @Test func aJournalOfVersionThreeIsRead() throws {
        let bytes = JournalFile.headerVersion3 + Self.batches.flatMap { Self.versionThreeRecord($0) }
        let contents = JournalFile.decode(bytes)
        #expect(contents.damage == nil && contents.version == 3 && contents.validLength == bytes.count)
        #expect(contents.entries == JournalFile.decode(Self.journal(Self.batches)).entries)
        let mixed = JournalFile.decode(JournalFile.header + Self.versionThreeRecord(Self.interleaved))
        #expect(mixed.damage == .checksumMismatch(offset: JournalFile.header.count) && mixed.entries.isEmpty)
    }

    /// A session's entries of two epochs (before and after a CLEAR) stay apart.
    @Test func entriesOfEachEpochStayApart() throws {
        var batch = JournalBatch()
        let a = try Self.name("a")
        batch.append(Self.a1, session: a, epoch: 1)
        batch.append(Self.a2, session: a, epoch: 2)
        batch.append(Self.a3, session: a, epoch: 1)
        batch.seal()
        let contents = JournalFile.decode(JournalFile.header + batch.records.bytes)
        #expect(contents.entries == [SessionEpoch(a, 1): [Self.a1, Self.a3], SessionEpoch(a, 2): [Self.a2]])
    }

    /// The first release's journal: every entry of epoch 0, and a fresh
    /// start dropping the session's earlier entries only.
    @Test func aFreshStartOfTheFirstReleaseDropsTheSessionsEarlierEntriesOnly() throws {
        var bytes = JournalFile.headerVersion2 + Self.firstReleaseRecord([("a", Self.a1), ("b", Self.b1)])
        bytes += Self.freshStart("a") + Self.firstReleaseRecord([("a", Self.a2)])
        let contents = JournalFile.decode(bytes)
        #expect(contents.damage == nil && contents.version == 2)
        let (a, b) = (SessionEpoch(try Self.name("a"), 0), SessionEpoch(try Self.name("b"), 0))
        #expect(contents.entries == [a: [Self.a2], b: [Self.b1]])
        let deleted = JournalFile.headerVersion2 + Self.firstReleaseRecord([("a", Self.a1)]) + Self.freshStart("a")
        #expect(JournalFile.decode(deleted).entries == [a: []])
    }

    @Test func anEmptyOrHeaderOnlyJournalIsClean() {
        #expect(JournalFile.decode([]) == JournalContents())
        let headerOnly = JournalFile.decode(JournalFile.header)
        #expect(headerOnly.entries.isEmpty && headerOnly.damage == nil)
        #expect(headerOnly.validLength == JournalFile.header.count)
    }

    /// Cut at every byte, the journal keeps exactly the records before the
    /// cut (a record's entries all or none), and says it was torn unless
    /// the cut falls between records.
    @Test func aJournalCutAtEveryByteKeepsTheRecordsBeforeTheCut() throws {
        let bytes = Self.journal(Self.batches)
        let boundaries = (0...Self.batches.count).map { Self.journal(Array(Self.batches.prefix($0))).count }
        for length in 0..<bytes.count {
            let contents = JournalFile.decode(Array(bytes[..<length]))
            let kept = boundaries.lastIndex { $0 <= length }
            let expected = kept.map { JournalFile.decode(Self.journal(Array(Self.batches.prefix($0)))) }
            #expect(contents.entries == expected?.entries ?? [:], "cut at \(length)")
            #expect(contents.validLength == kept.map { boundaries[$0] } ?? 0, "cut at \(length)")
            #expect((contents.damage != nil) == (length > 0 && !boundaries.contains(length)), "cut at \(length)")
        }
    }

    @Test func aFlippedByteCutsFromItsRecordOn() {
        let bytes = Self.journal(Self.batches)
        let boundaries = (0...Self.batches.count).map { Self.journal(Array(Self.batches.prefix($0))).count }
        for offset in JournalFile.header.count..<bytes.count {
            var damaged = bytes
            damaged[offset] ^= 0x10
            let contents = JournalFile.decode(damaged)
            let recordStart = boundaries.last { $0 <= offset } ?? 0
            #expect(contents.validLength == recordStart, "flipped at \(offset)")
            #expect(contents.damage != nil, "flipped at \(offset)")
        }
        var header = bytes
        header[3] ^= 0x01
        #expect(JournalFile.decode(header).damage == .badHeader)
        #expect(JournalFile.decode(header).entries.isEmpty)
    }

    /// Bodies that pass their checksum but cannot be read whole are not
    /// taken in part: reading stops before them.
    @Test(
        arguments: [
            [3, 0, 4, 1, 1, 0, 0],  // an empty session name
            [3, 1, 0x73, 4, 0x80, 0x00, 1, 0, 0],  // an id not in its shortest form
            [3, 1, 0x73, 0x84, 0x00, 1, 1, 0, 0],  // an epoch not in its shortest form
            [3, 1, 0x73, 4, 1, 1, 2, 0],  // flags other than hit
            [3, 1, 0x73, 4, 1, 1, 0, 2, 0x61],  // a text longer than the record
            [3, 1, 0x73, 4, 1, 1, 0, 0, 1],  // a byte after the last entry
            [3, 1, 0x73, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 1, 0, 0],  // an id past 64 bits
            [2, 2, 0x73],  // a fresh start whose name runs out
            [9, 1, 0x73],  // an unknown kind
        ] as [[UInt8]])
    func aMalformedRecordIsNotTakenInPart(body: [UInt8]) throws {
        let good = Self.journal([[("a", Self.a1)]])
        var record = [UInt8](repeating: 0, count: JournalFile.recordHeaderLength) + body
        record.withUnsafeMutableBytes { SealedRecord.seal($0) }
        let contents = JournalFile.decode(good + record + Self.records([[("b", Self.b1)]]))
        #expect(contents.entries == [try Self.key("a"): [Self.a1]])
        #expect(contents.validLength == good.count)
        #expect(contents.damage == .checksumMismatch(offset: good.count))
    }

    /// Journals of format version 1 (one record per entry, holding its
    /// entries-file record) are read, with records of version 2 after them
    /// (the first release folded version 1 journals by appending to them).
    @Test func aVersion1JournalIsRead() throws {
        func entryRecord(_ session: String, _ entry: Entry) -> [UInt8] {
            let inner = version2Record(entry)
            var record = [UInt8](repeating: 0, count: 8) + [1, UInt8(session.utf8.count)] + Array(session.utf8) + inner
            record.withUnsafeMutableBytes { SealedRecord.seal($0) }
            return record
        }
        var bytes = JournalFile.headerVersion1 + entryRecord("a", Self.a1) + entryRecord("b", Self.b1)
        bytes += Self.freshStart("b")
        bytes += entryRecord("a", Self.b2) + Self.firstReleaseRecord([("a", Self.a3), ("b", Self.b2)])
        let contents = JournalFile.decode(bytes)
        #expect(contents.damage == nil)
        let (a, b) = (SessionEpoch(try Self.name("a"), 0), SessionEpoch(try Self.name("b"), 0))
        #expect(contents.entries == [a: [Self.a1, Self.b2, Self.a3], b: [Self.b2]])
        var damaged = bytes
        damaged[JournalFile.header.count + 20] ^= 1
        #expect(JournalFile.decode(damaged).validLength == JournalFile.header.count)
    }

    /// Names of up to 15 bytes live inside the string, longer ones outside it.
    @Test(arguments: [1, 15, 16, 64])
    func namesOfEveryLengthRoundTrip(length: Int) throws {
        let text = String(repeating: "n", count: length)
        let bytes = Self.journal([[(text, Self.a1), ("b", Self.b1), (text, Self.a2)]])
        #expect(JournalFile.decode(bytes).entries[SessionEpoch(try Self.name(text), 5)] == [Self.a1, Self.a2])
    }
}
