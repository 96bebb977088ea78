import Testing

@testable import MonkeyCore

/// A corpus's works as read: names, order, UTF-8, sizes, and every error.
struct CorpusSourceTests {
    static func source(_ files: [(String, [UInt8])], limits: CorpusLimits = CorpusLimits()) throws -> CorpusSource {
        try CorpusSource(name: "c", files: files, limits: limits)
    }

    @Test func takesWorksInByteOrderOfTheirNames() throws {
        let source = try Self.source([
            ("b.txt", Array("bee".utf8)), ("B.txt", Array("big".utf8)), ("a_2.txt", [0x61]), ("a.txt", [0x61]),
            ("a-1.txt", [0x61]),
        ])
        #expect(source.works.map(\.name) == ["B", "a", "a-1", "a_2", "b"])
        #expect(source.works.map(\.file) == ["B.txt", "a.txt", "a-1.txt", "a_2.txt", "b.txt"])
        #expect(source.byteCount == 9)
    }

    @Test(arguments: ["a.txt", "hamlet.txt", "x.y.txt", ".txt", ".hidden.txt"])
    func seesWhichFileNamesAreWorks(name: String) {
        #expect(CorpusSource.isWorkFile(name))
    }

    @Test(arguments: ["a.TXT", "a.txt~", "a.txt.swp", "README", "txt", "a.tx"])
    func seesWhichFileNamesAreNotWorks(name: String) {
        #expect(!CorpusSource.isWorkFile(name))
    }

    @Test(arguments: [
        ".txt", ".hidden.txt", "-dash.txt", "has space.txt", "Hamlet (1603).txt", "é.txt",
        String(repeating: "x", count: 65) + ".txt", "a.md",
    ])
    func refusesAWorkWhoseNameIsNotValid(file: String) throws {
        #expect(throws: CorpusError.badWorkName(file: file)) {
            try Self.source([("good.txt", [0x61]), (file, [0x61])])
        }
        #expect(CorpusError.badWorkName(file: file).message.contains(file))
    }

    @Test func refusesACorpusWithoutWorks() {
        #expect(throws: CorpusError.noWorks(name: "c")) { try Self.source([]) }
    }

    @Test(
        arguments: [
            ([0x61, 0x80], 1),  // a stray continuation byte
            ([0x61, 0x62, 0xC3], 2),  // a sequence cut short at the end
            ([0xC0, 0xAF], 0),  // an overlong '/'
            ([0xE0, 0x80, 0xAF], 0),  // an overlong three-byte form
            ([0xED, 0xA0, 0x80], 0),  // a surrogate
            ([0xF4, 0x90, 0x80, 0x80], 0),  // past U+10FFFF
            ([0xF5, 0x80, 0x80, 0x80], 0),  // a lead byte that never occurs
            ([0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0xFF], 9),  // after the ASCII fast path
            ([0xC3, 0xA9, 0xC3], 2),
        ] as [([UInt8], Int)])
    func refusesAFileThatIsNotUTF8(bytes: [UInt8], offset: Int) {
        #expect(throws: CorpusError.notUTF8(file: "bad.txt", offset: offset)) {
            try Self.source([("good.txt", [0x61]), ("bad.txt", bytes)])
        }
        #expect(
            CorpusError.notUTF8(file: "bad.txt", offset: offset).message == "bad.txt is not UTF-8 (at byte \(offset))")
    }

    @Test(arguments: ["", "plain ASCII text of some length", "é", "日本", "🐒", "\u{10FFFF}", "\u{FEFF}bom"])
    func acceptsWellFormedUTF8(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer(UTF8Text.firstInvalidOffset) == nil)
    }

    @Test func refusesFilesLargerThanFourTimesTheLimit() throws {
        let limits = CorpusLimits(maximumCorpusBytes: 10)
        #expect(limits.maximumFileBytes == 40)
        _ = try Self.source([("a.txt", [UInt8](repeating: 0x61, count: 40))], limits: limits)
        #expect(throws: CorpusError.filesTooLarge(limit: 40)) {
            try Self.source(
                [("a.txt", [UInt8](repeating: 0x61, count: 30)), ("b.txt", [UInt8](repeating: 0x61, count: 11))],
                limits: limits)
        }
    }

    @Test func refusesAWorkEmptyAfterNormalisation() throws {
        #expect(throws: CorpusError.emptyWork(file: "numbers.txt")) {
            try CorpusFixtures.corpus([("a.txt", "words"), ("numbers.txt", "1, 2, 3.")])
        }
        // The same work is not empty for an alphabet with digits.
        let corpus = try CorpusFixtures.corpus(
            [("a.txt", "words"), ("numbers.txt", "1, 2, 3.")], alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
        #expect(corpus.works.map(\.count) == [5, 3])
    }

    @Test func refusesANormalisedCorpusLargerThanTheLimit() throws {
        let limits = CorpusLimits(maximumCorpusBytes: 10)
        _ = try CorpusFixtures.corpus([("a.txt", "abcde, FGHIJ!")], limits: limits)
        #expect(throws: CorpusError.tooLarge(limit: 10)) {
            try CorpusFixtures.corpus([("a.txt", "abcde"), ("b.txt", "fghijk")], limits: limits)
        }
        // Bytes of UTF-8, not characters: five two-byte letters are 10 bytes.
        _ = try CorpusFixtures.corpus([("a.txt", "ééééé")], alphabet: "é", limits: limits)
        #expect(throws: CorpusError.tooLarge(limit: 10)) {
            try CorpusFixtures.corpus([("a.txt", "éééééé")], alphabet: "é", limits: limits)
        }
        #expect(CorpusError.tooLarge(limit: 10).message.contains("max_corpus_bytes (10 bytes)"))
    }

    @Test func clampsTheLimitToWhatPositionsCanNumber() {
        #expect(CorpusLimits(maximumCorpusBytes: 0).maximumCorpusBytes == 1)
        #expect(CorpusLimits(maximumCorpusBytes: Int.max).maximumCorpusBytes == CorpusLimits.largestCorpusBytes)
        #expect(CorpusLimits().maximumCorpusBytes == 64 << 20)
    }

    @Test func placesWorksOneAfterTheOther() throws {
        let corpus = try CorpusFixtures.corpus([("b.txt", "Is this"), ("a.txt", "To be!"), ("c.txt", "x")])
        #expect(corpus.works.map(\.name) == ["a", "b", "c"])
        #expect(corpus.works.map(\.start) == [0, 4, 10])
        #expect(corpus.works.map(\.count) == [4, 6, 1])
        #expect(corpus.characterCount == 11)
        #expect(corpus.byteCount == 11)
        #expect(corpus.text(0..<11) == "tobeisthisx")
        #expect((0..<11).map(corpus.work(containing:)) == [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2])
        #expect(corpus.work(named: "b") == 1)
        #expect(corpus.work(named: "d") == nil)
    }

    /// Every error names its file or its limit, and says which protocol error it is.
    @Test(arguments: [
        (CorpusError.noSuchCorpus(name: "x"), CorpusError.Kind.noSuchCorpus, "x"),
        (.noWorks(name: "x"), .badCorpus, "x"),
        (.badWorkName(file: "a b.txt"), .badCorpus, "a b.txt"),
        (.notUTF8(file: "f.txt", offset: 3), .badCorpus, "f.txt"),
        (.emptyWork(file: "f.txt"), .badCorpus, "f.txt"),
        (.tooLarge(limit: 12), .badCorpus, "12"),
        (.filesTooLarge(limit: 48), .badCorpus, "48"),
        (.linkOutside(file: "f.txt"), .badCorpus, "f.txt"),
        (.changedWhileRead(file: "f.txt"), .badCorpus, "f.txt"),
        (.unreadable(file: "f.txt", reason: "Permission denied"), .badCorpus, "Permission denied"),
        (.alphabetTooLarge(count: 300, limit: 256), .badArgument, "300"),
    ])
    func namesTheFileOrTheLimit(error: CorpusError, kind: CorpusError.Kind, named: String) {
        #expect(error.kind == kind)
        #expect(error.message.contains(named))
        #expect(!error.message.contains("\n"))
    }
}
