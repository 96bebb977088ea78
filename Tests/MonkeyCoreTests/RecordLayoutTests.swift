import Testing

@testable import MonkeyCore

/// The bytes of an entries-file record and of a journal record, built here
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

    static var entryRecord: [UInt8] {
        framed(littleEndian(entry.id) + littleEndian(entry.number) + [1] + Array(entry.text.utf8))
    }

    @Test func anEntriesFileRecord() {
        var output: [UInt8] = [9]
        EntryFile.appendRecord(Self.entry, to: &output)
        #expect(output == [9] + Self.entryRecord)
    }

    @Test(arguments: ["s", "a-fifteen-bytes", "a.name.longer.than.fifteen.bytes"])
    func aJournalEntryRecord(_ name: String) throws {
        var output = RecordBuffer()
        output.append(contentsOf: [9])
        JournalFile.appendEntry(Self.entry, session: try #require(SessionName(name)), to: &output)
        let nameBytes = Array(name.utf8)
        #expect(Array(output.bytes) == [9] + Self.framed([1, UInt8(nameBytes.count)] + nameBytes + Self.entryRecord))
    }

    @Test func aJournalFreshStartRecord() throws {
        var output: [UInt8] = []
        JournalFile.appendFreshStart(session: try #require(SessionName("s")), to: &output)
        #expect(output == Self.framed([2, 1] + Array("s".utf8)))
    }

    @Test func aLongTextIsOneRecordToo() {
        let entry = Entry(id: 1, number: 1, text: String(repeating: "é", count: 10_000), isHit: false)
        var output: [UInt8] = []
        EntryFile.appendRecord(entry, to: &output)
        #expect(
            output
                == Self.framed(
                    Self.littleEndian(UInt64(1)) + Self.littleEndian(UInt64(1)) + [0] + Array(entry.text.utf8)))
    }
}
