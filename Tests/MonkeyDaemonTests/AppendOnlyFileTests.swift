import Foundation
import MonkeyCore
import Testing

@testable import MonkeyDaemon

/// The one way the store appends: after the good bytes only, what a failed
/// write left cut at the next append, a torn tail cut at start-up.
@Suite("Append-only files")
struct AppendOnlyFileTests {
    let directory = TemporaryDirectory()
    var path: String { directory.path + "/file" }
    static let header: [UInt8] = Array("HEAD".utf8)

    func contents() -> [UInt8] {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
    }

    func file(length: Int = 0, room: Int = 0) -> AppendOnlyFile {
        AppendOnlyFile(path: path, label: "the test file \(path)", header: Self.header, length: length, room: room)
    }

    @Test func theFirstAppendWritesTheHeader() throws {
        var file = file()
        try file.append(Array("one".utf8), sync: true)
        try file.append(Array("two".utf8), sync: false)
        #expect(contents() == Array("HEADonetwo".utf8))
        #expect(file.length == 10)
    }

    /// Bytes past the good ones (a write cut short, a crash) never stay
    /// in front of the next record.
    @Test func whatLiesPastTheGoodBytesIsCutByTheNextAppend() throws {
        var file = file()
        try file.append(Array("good".utf8), sync: true)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("torn".utf8))
        handle.closeFile()
        file.resume(at: file.length)
        try file.append(Array("next".utf8), sync: true)
        #expect(contents() == Array("HEADgoodnext".utf8))
    }

    @Test func aTornTailIsCutAndAHeaderCutIntoIsWrittenAgain() throws {
        var file = file()
        try file.append(Array("recordtorn".utf8), sync: true)
        try file.cut(to: 10)
        #expect(contents() == Array("HEADrecord".utf8) && file.length == 10)
        try file.cut(to: 2)
        #expect(contents() == Self.header && file.length == 4)
    }

    /// Zeros kept ahead of the records: the file is longer than its good
    /// bytes, and appends go over the zeros.
    @Test func roomAheadIsZerosThatAppendsWriteOver() throws {
        var file = file(room: 16)
        try file.append(Array("abc".utf8), sync: true)
        #expect(contents() == Array("HEADabc".utf8) + [UInt8](repeating: 0, count: 16))
        try file.append(Array("de".utf8), sync: true)
        #expect(contents() == Array("HEADabcde".utf8) + [UInt8](repeating: 0, count: 14))
        #expect(file.length == 9)
    }

    @Test func aReplacedFileIsWholeAndAppendsFollowIt() throws {
        var file = file()
        try file.append(Array("old".utf8), sync: true)
        try file.replace(with: Array("HEADnew".utf8), what: "the test file")
        try file.append(Array("+".utf8), sync: true)
        #expect(contents() == Array("HEADnew+".utf8))
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    /// A large replacement goes to the disk a piece at a time: every
    /// length around the pieces' edges comes back byte for byte.
    @Test(arguments: [0, 1, 2, 3])
    func aReplacementWrittenInPiecesIsWhole(pieces: Int) throws {
        let piece = AppendOnlyFile.writePiece
        var lengths = [pieces * piece]
        if pieces > 0 { lengths += [pieces * piece - 1, pieces * piece + 1] }
        for length in lengths {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
            try AppendOnlyFile.replaceFile(at: path, with: bytes, what: "the test file")
            let written = contents()
            // The first difference, not the arrays: a failure's message stays short.
            let firstDifference = written.indices.first { written[$0] != bytes[$0] }
            #expect(written.count == length, "length \(length)")
            #expect(firstDifference == nil, "length \(length)")
        }
    }

    @Test func aFileThatCannotBeWrittenSaysWhichAndStaysAsItWas() throws {
        var file = AppendOnlyFile(
            path: directory.path + "/missing/file", label: "the test file", header: Self.header, length: 0)
        #expect(throws: StorageError.self) { try file.append(Array("x".utf8), sync: true) }
        do {
            try file.append(Array("x".utf8), sync: true)
        } catch {
            #expect(error.message.hasPrefix("cannot write the test file: "))
        }
        #expect(file.length == 0)
    }
}
