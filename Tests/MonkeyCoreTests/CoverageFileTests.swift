import Testing

@testable import MonkeyCore

/// The coverage file: a round trip in both encodings, and every damage found.
struct CoverageFileTests {
    static func sample(texts: Int, seed: UInt64 = 5) throws -> (Corpus, ChunkIndex, Coverage, CorpusDigest) {
        var random = WyRand(seed: seed)
        let corpus = try CorpusFixtures.randomCorpus(alphabet: "abc", works: 4, longest: 300, using: &random)
        let index = ChunkIndex(corpus: corpus, chunkLength: 5)
        let all = (0..<texts).map { _ in ChunkIndexTests.text(for: corpus, length: 40, using: &random) }
        let (coverage, _, _) = CoverageTests.covered(index, texts: all)
        return (corpus, index, coverage, CorpusDigest(corpus: corpus, chunkLength: 5))
    }

    @Test(arguments: [0, 3, 30, 3000])
    func readsBackWhatItWrote(texts: Int) throws {
        let (corpus, _, coverage, digest) = try Self.sample(texts: texts)
        let bytes = CoverageFile.encode(coverage, digest: digest)
        let restored = try CoverageFile.decode(bytes, corpus: corpus, chunkLength: 5, digest: digest)
        #expect(restored == coverage)
        #expect(restored.longestRun == coverage.longestRun)
        #expect(restored.windows == coverage.windows)
        // Runs while sparse or complete, never longer than the bitmap.
        #expect(bytes.count <= CoverageFile.headerLength + (corpus.characterCount + 63) / 64 * 8)
    }

    /// Every third character covered: runs would be longer than the bitmap.
    @Test func writesTheBitmapForScatteredCoverage() throws {
        let (corpus, _, _, digest) = try Self.sample(texts: 0)
        var coverage = Coverage(corpus: corpus, chunkLength: 5)
        var completed: [Int] = []
        for position in stride(from: 0, to: corpus.characterCount, by: 3) {
            _ = coverage.cover(position..<(position + 1), completed: &completed)
        }
        let bytes = CoverageFile.encode(coverage, digest: digest)
        #expect(bytes[CoverageFile.encodingOffset] == 0)
        #expect(try CoverageFile.decode(bytes, corpus: corpus, chunkLength: 5, digest: digest) == coverage)
    }

    @Test func choosesRunsForSparseCoverage() throws {
        let (corpus, _, coverage, digest) = try Self.sample(texts: 1)
        let bytes = CoverageFile.encode(coverage, digest: digest)
        #expect(bytes[CoverageFile.encodingOffset] == 1)
        #expect(bytes.count < 100)
        #expect(try CoverageFile.decode(bytes, corpus: corpus, chunkLength: 5, digest: digest) == coverage)
    }

    @Test func findsEveryFlippedByteAndEveryCut() throws {
        let (corpus, _, coverage, digest) = try Self.sample(texts: 30)
        let bytes = CoverageFile.encode(coverage, digest: digest)
        for position in bytes.indices {
            var damaged = bytes
            damaged[position] ^= 0x10
            #expect(throws: CoverageFile.Damage.self) {
                try CoverageFile.decode(damaged, corpus: corpus, chunkLength: 5, digest: digest)
            }
        }
        for length in [0, 7, 8, CoverageFile.headerLength, bytes.count - 5, bytes.count - 1] {
            #expect(throws: CoverageFile.Damage.self) {
                try CoverageFile.decode(Array(bytes[..<length]), corpus: corpus, chunkLength: 5, digest: digest)
            }
        }
        #expect(throws: CoverageFile.Damage.cut) {
            try CoverageFile.decode(Array(bytes.dropLast()), corpus: corpus, chunkLength: 5, digest: digest)
        }
        #expect(throws: CoverageFile.Damage.cut) {
            try CoverageFile.decode(bytes + [0], corpus: corpus, chunkLength: 5, digest: digest)
        }
        var checksum = bytes
        checksum[CoverageFile.headerLength + 1] ^= 1
        #expect(throws: CoverageFile.Damage.badChecksum) {
            try CoverageFile.decode(checksum, corpus: corpus, chunkLength: 5, digest: digest)
        }
    }

    @Test func refusesTheCoverageOfAnotherCorpus() throws {
        let (corpus, _, coverage, digest) = try Self.sample(texts: 30)
        let bytes = CoverageFile.encode(coverage, digest: digest)
        #expect(throws: CoverageFile.Damage.otherCorpus) {
            try CoverageFile.decode(
                bytes, corpus: corpus, chunkLength: 5, digest: CorpusDigest(corpus: corpus, chunkLength: 6))
        }
    }

    /// A checksum that matches over contents that contradict themselves is damage too.
    @Test func refusesContentsThatContradictThemselves() throws {
        let (corpus, _, coverage, digest) = try Self.sample(texts: 30)
        func resealed(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = CoverageFile.encode(coverage, digest: digest)
            change(&bytes)
            let crc = CRC32C.checksum(
                Array(bytes[CoverageFile.preambleLength...]), continuing: CRC32C.checksum(Array(bytes[8..<12])))
            withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(12..<16, with: $0) }
            return bytes
        }
        let characters = CoverageFile.preambleLength + 32
        #expect(try CoverageFile.decode(resealed { _ in }, corpus: corpus, chunkLength: 5, digest: digest) == coverage)
        let wrongCharacters = resealed { $0[characters] ^= 1 }
        let wrongCount = resealed { $0[characters + 8] ^= 1 }
        let wrongEncoding = resealed { $0[CoverageFile.encodingOffset] = 7 }
        let bitsPastTheEnd = resealed { $0[$0.count - 1] |= 0x80 }
        for bytes in [wrongCharacters, wrongCount, wrongEncoding, bitsPastTheEnd] {
            #expect(throws: CoverageFile.Damage.self) {
                try CoverageFile.decode(bytes, corpus: corpus, chunkLength: 5, digest: digest)
            }
        }
    }

    @Test func runLengthsRoundTrip() {
        var random = WyRand(seed: 1)
        for count in [1, 63, 64, 65, 200, 1000] {
            var words = [UInt64](repeating: 0, count: (count + 63) / 64)
            for bit in 0..<count where random.next(below: 3) == 0 { words[bit >> 6] |= 1 << UInt64(bit & 63) }
            let runs = CoverageFile.runLengths(words, count: count)
            #expect(runs.withUnsafeBytes { CoverageFile.bits(ofRuns: $0, count: count) } == words)
            #expect(runs.withUnsafeBytes { CoverageFile.bits(ofRuns: $0, count: count + 1) } == nil)
        }
    }
}
