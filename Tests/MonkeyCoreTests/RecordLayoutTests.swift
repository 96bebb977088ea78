import Testing

@testable import MonkeyCore

/// The bytes of an entries-file record and of the journal's records, built here
/// from the layout monkeyd(8) documents: files written by one version are
/// read by the next.
@Suite("Record layouts")
struct RecordLayoutTests {
    static func littleEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// `length`, `crc` of the length bytes and the rest, then the rest.
    static func framed(_ rest: [UInt8]) -> [UInt8] {
        let length = littleEndian(UInt32(rest.count))
        let crc = (length + rest).withUnsafeBytes { bytes in
            let lengthCRC = CRC32C.tableDrivenChecksum(UnsafeRawBufferPointer(rebasing: bytes[0..<4]), continuing: 0)
            return CRC32C.tableDrivenChecksum(UnsafeRawBufferPointer(rebasing: bytes[4...]), continuing: lengthCRC)
        }
        return length + littleEndian(crc) + rest
    }

    static let entry = Entry(id: 0x0102_0304_0506_0708, number: 42, text: "qwért", isHit: true)

    /// An entry as a run of an entries file holds it.
    static func runEntry(_ entry: Entry) -> [UInt8] {
        let text = Array(entry.text.utf8)
        return leb128(entry.id) + leb128(entry.number) + [entry.isHit ? 1 : 0] + leb128(UInt64(text.count)) + text
    }

    @Test func anEntriesFileRunOfOne() {
        var output: [UInt8] = [9]
        EntryFile.appendRecord(Self.entry, to: &output)
        #expect(output == [9] + Self.framed(Self.runEntry(Self.entry)))
    }

    /// Entries are written in runs, one checksum a run, a run ended once
    /// it holds `EntryFile.runLimit` bytes.
    @Test func anEntriesFileOfRuns() {
        let entries = (1...4_000).map {
            Entry(id: UInt64($0), number: UInt64($0) + 7, text: String(repeating: "x", count: 40), isHit: $0 % 9 == 0)
        }
        var expected = Array("MKYENT".utf8) + [0, 3] + Self.littleEndian(UInt64(5))
        var run: [UInt8] = []
        for entry in entries {
            if run.count >= EntryFile.runLimit {
                expected += Self.framed(run)
                run = []
            }
            run += Self.runEntry(entry)
        }
        expected += Self.framed(run)
        #expect(expected.count > 2 * EntryFile.runLimit)
        #expect(EntryFile.encode(entries, epoch: 5) == expected)
        #expect(EntryFile.records(entries) == Array(expected[EntryFile.preambleLength...]))
    }

    /// A file of format version 2 (one record per entry) is still read.
    @Test func anEntriesFileOfVersion2() {
        let record = Self.framed(
            Self.littleEndian(Self.entry.id) + Self.littleEndian(Self.entry.number) + [1] + Array(Self.entry.text.utf8))
        let file = Array("MKYENT".utf8) + [0, 2] + Self.littleEndian(UInt64(4)) + record + record
        let contents = EntryFile.decode(file, keepingLast: 10)
        #expect(contents.version == 2 && contents.epoch == 4)
        // The second record repeats the first's id: out of order, cut there.
        #expect(contents.entries == [Self.entry] && contents.damage == .outOfOrder(offset: 16 + record.count))
    }

    /// Unsigned LEB128, written here independently of `VarInt`.
    static func leb128(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            bytes.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
            value >>= 7
        } while value > 0
        return bytes
    }

    @Test(arguments: ["s", "a-fifteen-bytes", "a.name.longer.than.fifteen.bytes"])
    func aJournalEntriesRecord(_ name: String) throws {
        let second = Entry(id: 300, number: 2, text: "", isHit: false)
        var batch = JournalBatch()
        batch.append(Self.entry, session: try #require(SessionName(name)), epoch: 200)
        batch.append(second, session: try #require(SessionName("t")), epoch: 1)
        batch.seal()
        let nameBytes = Array(name.utf8)
        let text = Array(Self.entry.text.utf8)
        // Typed, each entry is a group of its own: name, epoch, a count of 1, the entry.
        let expected = Self.framed(
            [3, UInt8(nameBytes.count)] + nameBytes + Self.leb128(200) + [1] + Self.leb128(Self.entry.id)
                + Self.leb128(Self.entry.number) + [1] + Self.leb128(UInt64(text.count)) + text + [1]
                + Array("t".utf8) + [0x01, 0x01, 0xAC, 0x02, 0x02, 0x00, 0x00])
        #expect(Array(batch.records.bytes) == expected)
    }

    /// Grouped at a sync, a session's entries follow one head, its count
    /// counting them.
    @Test func aJournalEntriesRecordGrouped() throws {
        let name = try #require(SessionName("s"))
        var batch = JournalBatch()
        batch.append(Entry(id: 1, number: 1, text: "ab", isHit: false), session: name, epoch: 200)
        batch.append(Entry(id: 2, number: 2, text: "", isHit: true), session: name, epoch: 200)
        var grouping = JournalGrouping()
        let result = grouping.group(batch)
        let grouped = try #require(result)
        let expected = Self.framed(
            [3, 1] + Array("s".utf8) + Self.leb128(200) + [2] + [1, 1, 0, 2] + Array("ab".utf8) + [2, 2, 1, 0])
        #expect(Array(grouped) == expected)
    }

    @Test func anEntriesFilePreamble() {
        #expect(EntryFile.preamble(epoch: 0x0102) == Array("MKYENT".utf8) + [0, 3] + Self.littleEndian(UInt64(0x0102)))
    }

    /// A text as a control record holds it: its length in bytes, then UTF-8.
    static func text(_ text: String) -> [UInt8] {
        leb128(UInt64(text.utf8.count)) + Array(text.utf8)
    }

    @Test func aControlLogSessionRecord() throws {
        let settings = SessionSettings(
            monkeys: 3, interval: Interval(nanoseconds: 250_000_000), alphabet: try alphabet("ab"),
            target: TargetMatcher(target: "ba"), seed: TypingSeed(7))
        let snapshot = SessionSnapshot(
            name: try #require(SessionName("s")), settings: settings, isTyping: true, nextID: 300, nextNumber: 2,
            typed: 1, hits: 0, bestLength: 1, epoch: 9)
        var output: [UInt8] = []
        ControlFile.append(
            .session(StoredSession(snapshot: snapshot, reservedID: 900, reservedNumber: 602)), to: &output)
        let body: [UInt8] =
            [1] + Self.text("s") + Self.leb128(9) + [3] + Self.leb128(3) + Self.leb128(250_000_000) + Self.text("ab")
            + Self.text("ba") + Self.leb128(300) + Self.leb128(2) + Self.leb128(1) + Self.leb128(0) + Self.leb128(1)
            + Self.leb128(900) + Self.leb128(602) + Self.littleEndian(UInt64(7))
        #expect(output == Self.framed(body))
        var deleted: [UInt8] = []
        ControlFile.append(.deleted(try #require(SessionName("s"))), to: &deleted)
        #expect(deleted == Self.framed([2] + Self.text("s")))
    }

    @Test func aControlLogPreamble() {
        #expect(
            ControlFile.preamble(ControlFile.logHeader, segment: 3) == Array("MKYCTL".utf8) + [0, 1]
                + Self.littleEndian(UInt64(3)))
    }

    @Test func aLongTextIsOneRunToo() {
        let entry = Entry(id: 1, number: 1, text: String(repeating: "é", count: 100_000), isHit: false)
        var output: [UInt8] = []
        EntryFile.appendRecord(entry, to: &output)
        #expect(output == Self.framed(Self.runEntry(entry)))
    }
}
