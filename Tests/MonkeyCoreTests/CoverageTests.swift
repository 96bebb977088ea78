import Testing

@testable import MonkeyCore

/// Coverage as the index and `Coverage` keep it, character by character
/// against the plain rule (`CorpusFixtures.referenceCoverage`).
struct CoverageTests {
    /// Types `texts` into a fresh coverage: each text's windows scanned and covered.
    static func covered(_ index: ChunkIndex, texts: [[UInt8]]) -> (Coverage, newly: [Int], completed: [Int]) {
        var coverage = Coverage(index: index)
        var matches: [ChunkID] = []
        var completed: [Int] = []
        var newly: [Int] = []
        for text in texts {
            matches.removeAll(keepingCapacity: true)
            text.withUnsafeBufferPointer { index.scan(symbols: $0, into: &matches) }
            newly.append(matches.reduce(0) { $0 + coverage.cover($1, in: index, completed: &completed) })
            coverage.addWindows(UInt64(max(0, text.count - index.chunkLength + 1)))
        }
        return (coverage, newly, completed)
    }

    /// The longest run of covered characters within one work, and the first work holding one that long.
    static func longestRun(_ covered: [Bool], corpus: Corpus) -> (Int, Int?) {
        var best = 0
        var bestWork: Int?
        for (index, work) in corpus.works.enumerated() {
            var run = 0
            for position in work.range {
                run = covered[position] ? run + 1 : 0
                if run > best {
                    best = run
                    bestWork = index
                }
            }
        }
        return (best, bestWork)
    }

    /// The chunk of `text`, which must occur in the index's corpus.
    static func chunk(_ text: String, in index: ChunkIndex) throws -> ChunkID {
        let symbols = try #require(index.corpus.alphabet.symbols(of: text))
        return try #require(index.chunk(of: symbols))
    }

    @Test(arguments: ["ab", "abc", "abcdefghij", "éü"])
    func coversWhatThePlainRuleCovers(alphabet: String) throws {
        var random = WyRand(seed: 13 &+ UInt64(alphabet.count))
        for round in 0..<25 {
            let corpus = try CorpusFixtures.randomCorpus(
                alphabet: alphabet, works: 1 + round % 4, longest: 70, using: &random)
            let chunkLength = 1 + Int(random.next(below: 8))
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            let texts = (0..<12).map { _ in
                ChunkIndexTests.text(for: corpus, length: Int(random.next(below: 60)), using: &random)
            }
            let (coverage, newly, completed) = Self.covered(index, texts: texts)
            let reference = CorpusFixtures.referenceCoverage(of: corpus, chunkLength: chunkLength, texts: texts)
            for position in 0..<corpus.characterCount {
                #expect(coverage.isCovered(position) == reference.covered[position], "character \(position)")
            }
            #expect(newly == reference.newlyCovered)
            #expect(coverage.coveredCount == reference.covered.filter { $0 }.count)
            for (work, range) in corpus.works.map(\.range).enumerated() {
                let figures = coverage.figures(ofWork: work)
                #expect(figures.covered == reference.covered[range].filter { $0 }.count)
                #expect(figures.characters == range.count)
                #expect(figures.isComplete == reference.covered[range].allSatisfy { $0 })
            }
            #expect(coverage.completeWorks == Set(completed).count)
            #expect(completed.count == Set(completed).count, "each work completed once")
            let (run, runWork) = Self.longestRun(reference.covered, corpus: corpus)
            #expect(coverage.longestRun == run)
            #expect(coverage.longestRunWork == runWork)
            #expect(coverage.windows == UInt64(texts.reduce(0) { $0 + max(0, $1.count - chunkLength + 1) }))
        }
    }

    @Test func coversEveryOccurrenceInEveryWork() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "tobeornottobe"), ("b.txt", "xtobex"), ("c.txt", "be")])
        let index = ChunkIndex(corpus: corpus, chunkLength: 4)
        var coverage = Coverage(index: index)
        var completed: [Int] = []
        let chunk = try Self.chunk("tobe", in: index)
        #expect(coverage.cover(chunk, in: index, completed: &completed) == 12)
        #expect(coverage.cover(chunk, in: index, completed: &completed) == 0)
        #expect(
            coverage.segments(ofWork: 0).map { [$0.offset, $0.length, $0.isCovered ? 1 : 0] } == [
                [0, 4, 1], [4, 5, 0], [9, 4, 1],
            ])
        #expect(
            coverage.segments(ofWork: 1).map { [$0.offset, $0.length, $0.isCovered ? 1 : 0] } == [
                [0, 1, 0], [1, 4, 1], [5, 1, 0],
            ])
        // A work shorter than the chunk is never covered: one segment.
        #expect(coverage.segments(ofWork: 2) == [Coverage.Segment(offset: 0, length: 2, isCovered: false)])
        #expect(coverage.longestRun == 4)
        #expect(coverage.longestRunWork == 0)
        #expect(completed.isEmpty)
        let whole = try Self.chunk("xtob", in: index)
        let rest = try Self.chunk("obex", in: index)
        #expect(coverage.cover(whole, in: index, completed: &completed) == 1)
        #expect(coverage.cover(rest, in: index, completed: &completed) == 1)
        #expect(completed == [1])
        #expect(coverage.segments(ofWork: 1) == [Coverage.Segment(offset: 0, length: 6, isCovered: true)])
        #expect(coverage.longestRun == 6)
        #expect(coverage.longestRunWork == 1)
    }

    /// A tie goes to the first work in corpus order, whatever the order of covering.
    @Test func namesTheFirstWorkWithTheLongestRun() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "abcdzz"), ("b.txt", "yyefgh")])
        let index = ChunkIndex(corpus: corpus, chunkLength: 4)
        var coverage = Coverage(index: index)
        var completed: [Int] = []
        for text in ["efgh", "abcd"] {
            let chunk = try Self.chunk(text, in: index)
            _ = coverage.cover(chunk, in: index, completed: &completed)
        }
        #expect(coverage.longestRun == 4)
        #expect(coverage.longestRunWork == 0)
    }

    /// Segments and runs across many words of the bitmap, against character-by-character scans.
    @Test func segmentsAlternateAndAddUpToTheWork() throws {
        var random = WyRand(seed: 99)
        let corpus = try CorpusFixtures.randomCorpus(alphabet: "ab", works: 3, longest: 700, using: &random)
        let index = ChunkIndex(corpus: corpus, chunkLength: 6)
        let texts = (0..<40).map { _ in ChunkIndexTests.text(for: corpus, length: 30, using: &random) }
        let (coverage, _, _) = Self.covered(index, texts: texts)
        for (work, range) in corpus.works.map(\.range).enumerated() {
            let segments = coverage.segments(ofWork: work)
            #expect(segments.reduce(0) { $0 + $1.length } == range.count)
            #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.isCovered != $1.isCovered })
            #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.offset + $0.length == $1.offset })
            for segment in segments {
                for offset in segment.offset..<(segment.offset + segment.length) {
                    #expect(coverage.isCovered(range.lowerBound + offset) == segment.isCovered)
                }
            }
        }
    }
}
