import Testing

@testable import MonkeyCore

/// Coverage as base64 lines, and their union.
struct CoverageBitmapTests {
    @Test(
        arguments: [
            ([], ""), ([0x66], "Zg=="), ([0x66, 0x6F], "Zm8="), ([0x66, 0x6F, 0x6F], "Zm9v"),
            (Array("foobar".utf8), "Zm9vYmFy"), ([0xFF, 0xFE, 0x00], "//4A"),
        ] as [([UInt8], String)])
    func encodesBase64AsRFC4648(bytes: [UInt8], text: String) {
        #expect(Base64.encode(bytes) == text)
        #expect(Base64.decode(text) == bytes)
    }

    @Test(arguments: ["Zg", "Zg=", "Z===", "Zh==", "Zm9=", "Z=g=", "Zg==Zg==", "Zm9v!", "Zm 9"])
    func refusesBase64ThatIsNotCanonical(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func writesBoundedLinesAndUnitesThemBack() throws {
        let (corpus, index, coverage, _) = try CoverageFileTests.sample(texts: 300)
        let lines = CoverageBitmap.lines(of: coverage, maximumBits: 64)
        #expect(lines.allSatisfy { $0.count <= 64 && $0.base64.utf8.count <= 12 })
        #expect(lines.reduce(0) { $0 + $1.count } == corpus.characterCount)
        #expect(CoverageBitmap.lines(of: coverage).allSatisfy { $0.base64.utf8.count <= 512 })
        var united = Coverage(index: index)
        var added = 0
        for line in lines {
            added += try CoverageBitmap.unite(&united, work: line.work, offset: line.offset, base64: line.base64)
        }
        #expect(added == coverage.coveredCount)
        #expect((0..<corpus.characterCount).allSatisfy { united.isCovered($0) == coverage.isCovered($0) })
        #expect(united.longestRun == coverage.longestRun)
        #expect(united.completeWorks == coverage.completeWorks)
    }

    /// The union of two hosts' coverage: a character covered if either covered it.
    @Test func unitesTwoCoverages() throws {
        let (corpus, index, first, _) = try CoverageFileTests.sample(texts: 100, seed: 1)
        var random = WyRand(seed: 2)
        let texts = (0..<100).map { _ in ChunkIndexTests.text(for: corpus, length: 40, using: &random) }
        let (second, _, _) = CoverageTests.covered(index, texts: texts)
        var union = first
        for line in CoverageBitmap.lines(of: second) {
            _ = try CoverageBitmap.unite(&union, work: line.work, offset: line.offset, base64: line.base64)
        }
        #expect(
            (0..<corpus.characterCount).allSatisfy {
                union.isCovered($0) == (first.isCovered($0) || second.isCovered($0))
            })
    }

    @Test func refusesLinesThatDoNotFit() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "abcdefghij")])
        var coverage = Coverage(corpus: corpus, chunkLength: 3)
        let before = coverage
        #expect(throws: CoverageBitmap.Problem.noSuchWork(1)) {
            try CoverageBitmap.unite(&coverage, work: 1, offset: 0, base64: "AA==")
        }
        #expect(throws: CoverageBitmap.Problem.notBase64) {
            try CoverageBitmap.unite(&coverage, work: 0, offset: 0, base64: "A")
        }
        #expect(throws: CoverageBitmap.Problem.outOfRange(offset: 11)) {
            try CoverageBitmap.unite(&coverage, work: 0, offset: 11, base64: "AA==")
        }
        // Bit 2 from offset 8 is character 10, past the work's end.
        #expect(throws: CoverageBitmap.Problem.outOfRange(offset: 10)) {
            try CoverageBitmap.unite(&coverage, work: 0, offset: 8, base64: Base64.encode([0x04]))
        }
        #expect(coverage == before)
        #expect(try CoverageBitmap.unite(&coverage, work: 0, offset: 8, base64: Base64.encode([0x03])) == 2)
    }
}
