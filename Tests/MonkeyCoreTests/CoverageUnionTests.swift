import Testing

@testable import MonkeyCore

/// Several hosts' bitmap lines united without the corpus, as
/// `monkeyctl -H … coverage` unites them.
struct CoverageUnionTests {
    static func lines(_ coverage: Coverage, names: [String], maximumBits: Int = 64) -> [CoverageUnion.Line] {
        CoverageBitmap.lines(of: coverage, maximumBits: maximumBits).map {
            CoverageUnion.Line(work: names[$0.work], offset: $0.offset, count: $0.count, base64: $0.base64)
        }
    }

    static func identity(_ coverage: Coverage, digest: String = "d1") -> CoverageUnion.Identity {
        CoverageUnion.Identity(digest: digest, chunk: "3", alphabet: "ab", characters: coverage.characterCount)
    }

    /// A character is covered in the union if either host covered it.
    @Test func unitesTwoHosts() throws {
        let (corpus, index, first, _) = try CoverageFileTests.sample(texts: 100, seed: 1)
        var random = WyRand(seed: 2)
        let texts = (0..<100).map { _ in ChunkIndexTests.text(for: corpus, length: 40, using: &random) }
        let (second, _, _) = CoverageTests.covered(index, texts: texts)
        let names = (0..<first.workCount).map { "work\($0)" }
        var union = CoverageUnion()
        try union.add(Self.identity(first), lines: Self.lines(first, names: names))
        try union.add(Self.identity(second), lines: Self.lines(second, names: names, maximumBits: 3072))
        let expected = (0..<corpus.characterCount).count { first.isCovered($0) || second.isCovered($0) }
        #expect(union.covered == expected)
        #expect(union.characters == corpus.characterCount)
        #expect(union.works.map(\.name) == names)
        #expect(union.works.map(\.characters) == first.workCounts)
    }

    /// A host whose digest, chunk or alphabet differ changes nothing, and says which.
    @Test func refusesAnotherExperiment() throws {
        let (_, _, first, _) = try CoverageFileTests.sample(texts: 20, seed: 1)
        let names = (0..<first.workCount).map { "work\($0)" }
        var union = CoverageUnion()
        try union.add(Self.identity(first), lines: Self.lines(first, names: names))
        let before = union.covered
        #expect(throws: CoverageUnion.Mismatch.differs(field: "digest", value: "d2", first: "d1")) {
            try union.add(Self.identity(first, digest: "d2"), lines: Self.lines(first, names: names))
        }
        var other = Self.identity(first)
        other.chunk = "4"
        #expect(throws: CoverageUnion.Mismatch.differs(field: "chunk", value: "4", first: "3")) {
            try union.add(other, lines: [])
        }
        other = Self.identity(first)
        other.alphabet = "abc"
        #expect(throws: CoverageUnion.Mismatch.differs(field: "alphabet", value: "abc", first: "ab")) {
            try union.add(other, lines: [])
        }
        #expect(throws: CoverageUnion.Mismatch.self) {
            try union.add(
                Self.identity(first), lines: [CoverageUnion.Line(work: "nope", offset: 0, count: 8, base64: "/w==")])
        }
        #expect(union.covered == before)
    }
}
