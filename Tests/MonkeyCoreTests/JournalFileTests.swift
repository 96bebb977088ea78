import Testing

@testable import MonkeyCore

/// The entries journal: every session's records in sync order, fresh
/// starts that drop a session's earlier records, and a torn or corrupt
/// tail cut at the last good record.
struct JournalFileTests {
    static func name(_ text: String) throws -> SessionName {
        try #require(SessionName(text))
    }

    /// The entries-file records of `entries`, without the file's header.
    static func records(_ entries: [Entry]) -> [UInt8] {
        Array(EntryFile.encode(entries).dropFirst(EntryFile.header.count))
    }

    /// A journal holding one record per entry, each of `session`.
    static func journal(_ entries: [(String, Entry)]) -> [UInt8] {
        var records = RecordBuffer()
        for (session, entry) in entries {
            if let name = SessionName(session) { JournalFile.appendEntry(entry, session: name, to: &records) }
        }
        return JournalFile.header + records.bytes
    }

    static let a1 = Entry(id: 1, number: 1, text: "abc", isHit: false)
    static let b1 = Entry(id: 1, number: 1, text: "żółw ✓", isHit: true)
    static let a2 = Entry(id: 2, number: 2, text: "", isHit: false)
    static let b2 = Entry(id: 7, number: 2, text: String(repeating: "q", count: 300), isHit: false)
    static let interleaved = [("a", a1), ("b", b1), ("a", a2), ("b", b2)]

    @Test func recordsComeBackBySessionInOrder() throws {
        let bytes = Self.journal(Self.interleaved)
        let contents = JournalFile.decode(bytes)
        #expect(contents.damage == nil)
        #expect(contents.validLength == bytes.count)
        #expect(
            contents.records == [
                try Self.name("a"): Self.records([Self.a1, Self.a2]),
                try Self.name("b"): Self.records([Self.b1, Self.b2]),
            ])
    }

    @Test func aFreshStartDropsTheSessionsEarlierRecordsOnly() throws {
        var bytes = Self.journal([("a", Self.a1), ("b", Self.b1)])
        JournalFile.appendFreshStart(session: try Self.name("a"), to: &bytes)
        bytes += Self.journal([("a", Self.a2)]).dropFirst(JournalFile.header.count)
        let contents = JournalFile.decode(bytes)
        #expect(contents.damage == nil)
        #expect(contents.records[try Self.name("a")] == Self.records([Self.a2]))
        #expect(contents.records[try Self.name("b")] == Self.records([Self.b1]))
        var deleted = Self.journal([("a", Self.a1)])
        JournalFile.appendFreshStart(session: try Self.name("a"), to: &deleted)
        #expect(JournalFile.decode(deleted).records == [try Self.name("a"): []])
    }

    @Test func anEmptyOrHeaderOnlyJournalIsClean() {
        #expect(JournalFile.decode([]) == JournalContents())
        let headerOnly = JournalFile.decode(JournalFile.header)
        #expect(headerOnly.records.isEmpty && headerOnly.damage == nil)
        #expect(headerOnly.validLength == JournalFile.header.count)
    }

    /// Cut at every byte, the journal keeps exactly the records before the
    /// cut, and says it was torn unless the cut falls between records.
    @Test func aJournalCutAtEveryByteKeepsTheRecordsBeforeTheCut() throws {
        let bytes = Self.journal(Self.interleaved)
        var boundaries = [JournalFile.header.count]
        for count in 1...Self.interleaved.count {
            boundaries.append(Self.journal(Array(Self.interleaved.prefix(count))).count)
        }
        for length in 0..<bytes.count {
            let contents = JournalFile.decode(Array(bytes[..<length]))
            let kept = boundaries.lastIndex { $0 <= length } ?? -1
            let expected =
                kept < 0 ? JournalContents() : JournalFile.decode(Self.journal(Array(Self.interleaved.prefix(kept))))
            #expect(contents.records == expected.records, "cut at \(length)")
            #expect(contents.validLength == (kept < 0 ? 0 : boundaries[kept]), "cut at \(length)")
            #expect((contents.damage != nil) == (length > 0 && !boundaries.contains(length)), "cut at \(length)")
        }
    }

    @Test func aFlippedByteCutsFromItsRecordOn() {
        let bytes = Self.journal(Self.interleaved)
        let boundaries = (0...Self.interleaved.count).map { Self.journal(Array(Self.interleaved.prefix($0))).count }
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
        #expect(JournalFile.decode(header).records.isEmpty)
    }

    @Test func aSessionsRecordsCanBeTakenOutOfUnwrittenOnes() throws {
        let records = Array(Self.journal(Self.interleaved).dropFirst(JournalFile.header.count))
        let withoutA = JournalFile.removingRecords(of: try Self.name("a"), from: records)
        #expect(
            JournalFile.decode(JournalFile.header + withoutA).records == [
                try Self.name("b"): Self.records([Self.b1, Self.b2])
            ])
        #expect(JournalFile.removingRecords(of: try Self.name("c"), from: records) == records)
        #expect(JournalFile.removingRecords(of: try Self.name("a"), from: []) == [])
    }

    /// Names of up to 15 bytes live inside the string, longer ones outside it.
    @Test(arguments: [1, 15, 16, 64])
    func namesOfEveryLengthRoundTrip(length: Int) throws {
        let text = String(repeating: "n", count: length)
        let bytes = Self.journal([(text, Self.a1), ("b", Self.b1), (text, Self.a2)])
        #expect(JournalFile.decode(bytes).records[try Self.name(text)] == Self.records([Self.a1, Self.a2]))
    }
}
