import Testing

@testable import MonkeyCore

/// The chunk index against a plain search of every place in the corpus.
struct ChunkIndexTests {
    /// A text of random characters with pieces of the corpus copied in, so
    /// that long windows match too.
    static func text(
        for corpus: Corpus, length: Int, using random: inout WyRand
    ) -> [UInt8] {
        var symbols: [UInt8] = []
        let k = UInt64(corpus.alphabet.count)
        while symbols.count < length {
            if random.next(below: 3) == 0 {
                let start = Int(random.next(below: UInt64(corpus.characterCount)))
                let count = min(Int(random.next(below: 20)), corpus.characterCount - start, length - symbols.count)
                symbols.append(contentsOf: corpus.symbols[start..<(start + count)])
            } else {
                symbols.append(UInt8(random.next(below: k)))
            }
        }
        return symbols
    }

    /// The windows of `text` (symbols) that occur in the corpus, as the
    /// chunk (first occurrence) of each, found by looking at every place.
    static func referenceMatches(of corpus: Corpus, chunkLength: Int, text: [UInt8]) -> [ChunkID] {
        guard text.count >= chunkLength else { return [] }
        var matches: [ChunkID] = []
        for start in 0...(text.count - chunkLength) {
            let window = Array(text[start..<(start + chunkLength)])
            search: for work in corpus.works where work.count >= chunkLength {
                for position in work.start...(work.start + work.count - chunkLength)
                where Array(corpus.symbols[position..<(position + chunkLength)]) == window {
                    matches.append(ChunkID(firstPosition: UInt32(position)))
                    break search
                }
            }
        }
        return matches.sorted()
    }

    static func scanned(_ index: ChunkIndex, bytes text: [UInt8]) -> [ChunkID] {
        var matches: [ChunkID] = []
        text.withUnsafeBufferPointer { index.scan($0, into: &matches) }
        return matches.sorted()
    }

    static func scanned(_ index: ChunkIndex, symbols text: [UInt8]) -> [ChunkID] {
        var matches: [ChunkID] = []
        text.withUnsafeBufferPointer { index.scan(symbols: $0, into: &matches) }
        return matches.sorted()
    }

    static func utf8(_ symbols: [UInt8], _ corpus: Corpus) -> [UInt8] {
        Array(corpus.alphabet.text(of: symbols).utf8)
    }

    @Test(arguments: ["ab", "abc", "abcd", "abcdefghijklmnopqrstuvwxyz", "aé日🐒"])
    func findsEveryWindowThatOccursAndNoOther(alphabet: String) throws {
        var random = WyRand(seed: 33 &+ UInt64(alphabet.utf8.count))
        for round in 0..<30 {
            let corpus = try CorpusFixtures.randomCorpus(
                alphabet: alphabet, works: 1 + round % 5, longest: 80, using: &random)
            let chunkLength = 1 + Int(random.next(below: 12))
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            for _ in 0..<10 {
                let text = Self.text(for: corpus, length: Int(random.next(below: 120)), using: &random)
                let expected = Self.referenceMatches(of: corpus, chunkLength: chunkLength, text: text)
                #expect(Self.scanned(index, symbols: text) == expected, "K=\(chunkLength) round \(round)")
                #expect(
                    Self.scanned(index, bytes: Self.utf8(text, corpus)) == expected, "K=\(chunkLength) round \(round)")
            }
        }
    }

    @Test(arguments: [1, 2, 5, 9, 17, 64])
    func findsWindowsOfEveryLength(chunkLength: Int) throws {
        var random = WyRand(seed: UInt64(chunkLength))
        let corpus = try CorpusFixtures.randomCorpus(alphabet: "abc", works: 4, longest: 200, using: &random)
        let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
        for _ in 0..<20 {
            let text = Self.text(for: corpus, length: 150, using: &random)
            #expect(
                Self.scanned(index, symbols: text)
                    == Self.referenceMatches(of: corpus, chunkLength: chunkLength, text: text))
        }
    }

    /// Multi-byte text is decoded in blocks of 4,096 characters: windows across a block's end are found once.
    @Test func findsWindowsAcrossTheDecodingBlocks() throws {
        var random = WyRand(seed: 4096)
        let corpus = try CorpusFixtures.randomCorpus(alphabet: "éü", works: 3, longest: 300, using: &random)
        for chunkLength in [1, 3, 8, 64] {
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            let text = Self.text(for: corpus, length: 9000, using: &random)
            #expect(
                Self.scanned(index, bytes: Self.utf8(text, corpus))
                    == Self.referenceMatches(of: corpus, chunkLength: chunkLength, text: text))
        }
    }

    /// Bytes (or symbols) that are no character never match, and never break the windows around them.
    @Test func takesBytesOutsideTheAlphabetAsBreaks() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "abcabcab")], alphabet: "abc")
        let index = ChunkIndex(corpus: corpus, chunkLength: 3)
        let text = Array("abcXbca\u{E9}cab\u{0}abc".utf8)
        // abc, bca, cab, abc: the windows without a stranger.
        let expected = [0, 1, 2, 0].map { ChunkID(firstPosition: UInt32($0)) }.sorted()
        #expect(Self.scanned(index, bytes: text) == expected)
        #expect(Self.scanned(index, symbols: [0, 1, 2, 200, 1, 2, 0, 255, 2, 0, 1, 3, 0, 1, 2]) == expected)
        let wide = try CorpusFixtures.corpus([("a.txt", "éüéü")], alphabet: "éü")
        let wideIndex = ChunkIndex(corpus: wide, chunkLength: 2)
        #expect(
            Self.scanned(wideIndex, bytes: Array("éüXüé\u{FF}".utf8) + [0xC3] + Array("éü".utf8))
                == [0, 1, 0].map { ChunkID(firstPosition: UInt32($0)) }.sorted())
    }

    /// A unit that is no character weighs as the first symbol in the
    /// filter's codes (no clamping on the hot path): it may let windows
    /// through the filter, never through the hash table, and never hides
    /// a window beside it. Strangers sprinkled among planted corpus pieces,
    /// at every K the filter samples with 5-grams.
    @Test(arguments: Array(5...12))
    func findsWindowsBesideStrangersAndNeverThroughThem(chunkLength: Int) throws {
        var random = WyRand(seed: 0x5CA7 &+ UInt64(chunkLength))
        let corpus = try CorpusFixtures.randomCorpus(
            alphabet: "abcdefghijklmnopqrstuvwxyz", works: 4, longest: 400, using: &random)
        let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
        let strangerBytes: [UInt8] = [0x41, 0x2E, 0x00, 0xFF, 0x60, 0x7B]
        let strangerSymbols: [UInt8] = [26, 27, 200, 255]
        for _ in 0..<40 {
            var symbols = Self.text(for: corpus, length: 300, using: &random)
            for _ in 0..<Int(random.next(below: 6)) {
                symbols[Int(random.next(below: UInt64(symbols.count)))] =
                    strangerSymbols[Int(random.next(below: UInt64(strangerSymbols.count)))]
            }
            let expected = Self.referenceMatches(of: corpus, chunkLength: chunkLength, text: symbols)
            let bytes = symbols.map {
                $0 < 26 ? 0x61 + $0 : strangerBytes[Int(random.next(below: UInt64(strangerBytes.count)))]
            }
            #expect(Self.scanned(index, symbols: symbols) == expected, "K=\(chunkLength)")
            #expect(Self.scanned(index, bytes: bytes) == expected, "K=\(chunkLength)")
        }
    }

    @Test func countsWindowsAndDistinctChunksAndFollowsOccurrences() throws {
        var random = WyRand(seed: 7)
        for _ in 0..<20 {
            let corpus = try CorpusFixtures.randomCorpus(alphabet: "ab", works: 3, longest: 40, using: &random)
            let chunkLength = 1 + Int(random.next(below: 6))
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            var places: [[UInt8]: [Int]] = [:]
            for work in corpus.works where work.count >= chunkLength {
                for position in work.start...(work.start + work.count - chunkLength) {
                    places[Array(corpus.symbols[position..<(position + chunkLength)]), default: []].append(position)
                }
            }
            #expect(index.windowCount == places.values.reduce(0) { $0 + $1.count })
            #expect(index.distinctChunks == places.count)
            for (chunk, positions) in places {
                let id = try #require(index.chunk(of: chunk))
                #expect(id.firstPosition == UInt32(positions[0]))
                #expect(index.occurrences(of: id) == positions)
            }
            #expect(index.chunk(of: [UInt8](repeating: 0, count: chunkLength + 1)) == nil)
        }
    }

    @Test func findsNothingWhenNoWorkIsAsLongAsTheChunk() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "abc"), ("b.txt", "de")])
        let index = ChunkIndex(corpus: corpus, chunkLength: 4)
        #expect(index.windowCount == 0)
        #expect(index.distinctChunks == 0)
        #expect(Self.scanned(index, bytes: Array("abcdeabcde".utf8)).isEmpty)
    }

    /// Windows never span two works.
    @Test func findsNoWindowAcrossTwoWorks() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "xxab"), ("b.txt", "cdyy")])
        let index = ChunkIndex(corpus: corpus, chunkLength: 4)
        #expect(Self.scanned(index, bytes: Array("abcd".utf8)).isEmpty)
        #expect(Self.scanned(index, bytes: Array("xxabcdyy".utf8)).count == 2)
    }

    @Test(arguments: [
        ("abcdefghijklmnopqrstuvwxyz", 9, 5), ("abcdefghijklmnopqrstuvwxyz", 3, 3),
        ("abcdefghijklmnopqrstuvwxyz ", 9, 5), ("ab", 40, 24), ("ab", 9, 9), ("a", 9, 9),
        ("abcdefghijklmnopqrstuvwxyz0123456789", 9, 4),
    ])
    func choosesTheLongestGramWhoseFilterFitsTwoMebibytes(alphabet: String, chunkLength: Int, gramLength: Int) throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", String(repeating: "a", count: 50))], alphabet: alphabet)
        let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
        #expect(index.gramLength == gramLength)
        #expect(index.filterBytes <= 4 << 20 + 16)
    }

    @Test func choosesThreeLettersForAnAlphabetOf256() throws {
        let text = String((0..<256).map { Character(Unicode.Scalar(0x100 + $0)!) })
        let corpus = try CorpusFixtures.corpus([("a.txt", text + text)], alphabet: text)
        let index = ChunkIndex(corpus: corpus, chunkLength: 9)
        #expect(index.gramLength == 3)
        let symbols = Array(corpus.symbols[250..<259])
        #expect(Self.scanned(index, symbols: symbols) == [ChunkID(firstPosition: 250)])
        #expect(Self.scanned(index, bytes: Self.utf8(symbols, corpus)) == [ChunkID(firstPosition: 250)])
    }

    @Test func matchesEveryWindowOfAnAlphabetOfOne() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "aaaa")], alphabet: "a")
        let index = ChunkIndex(corpus: corpus, chunkLength: 3)
        #expect(
            Self.scanned(index, bytes: Array("aaaaaa".utf8)) == Array(repeating: ChunkID(firstPosition: 0), count: 4))
        #expect(index.occurrences(of: ChunkID(firstPosition: 0)) == [0, 1])
    }

    /// A batch of entries finds what each entry alone finds, and says which entry.
    @Test(arguments: ["abc", "aé日"])
    func scansABatchAsItsEntries(alphabet: String) throws {
        var random = WyRand(seed: 21)
        let corpus = try CorpusFixtures.randomCorpus(alphabet: alphabet, works: 3, longest: 100, using: &random)
        for (chunkLength, entryLength) in [(1, 1), (3, 2), (3, 3), (4, 10), (9, 37)] {
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            let entries = (0..<20).map { _ in Self.text(for: corpus, length: entryLength, using: &random) }
            var expected: [EntryMatch] = []
            for (number, entry) in entries.enumerated() {
                expected += Self.referenceMatches(of: corpus, chunkLength: chunkLength, text: entry).map {
                    EntryMatch(entry: number, chunk: $0)
                }
            }
            let symbols = entries.flatMap { $0 }
            var fromSymbols = [EntryMatch(entry: -1, chunk: ChunkID(firstPosition: 0))]
            symbols.withUnsafeBufferPointer {
                index.scan(entrySymbols: $0, entryLength: entryLength, into: &fromSymbols)
            }
            #expect(fromSymbols.first == EntryMatch(entry: -1, chunk: ChunkID(firstPosition: 0)), "appended")
            #expect(Set(fromSymbols.dropFirst()) == Set(expected))
            #expect(fromSymbols.count - 1 == expected.count)
            let bytes = Self.utf8(symbols, corpus)
            var fromBytes: [EntryMatch] = []
            bytes.withUnsafeBufferPointer { index.scan(entries: $0, entryLength: entryLength, into: &fromBytes) }
            #expect(Set(fromBytes) == Set(expected))
            #expect(fromBytes.count == expected.count)
        }
    }

    /// One index, read by many threads at once (it is Sendable and never
    /// changes), each with its own buffer: every thread finds what one alone finds.
    @Test func isSharedByConcurrentScans() async throws {
        var random = WyRand(seed: 8)
        let corpus = try CorpusFixtures.randomCorpus(alphabet: "abc", works: 4, longest: 200, using: &random)
        let index = ChunkIndex(corpus: corpus, chunkLength: 6)
        let texts = (0..<64).map { _ in Self.utf8(Self.text(for: corpus, length: 300, using: &random), corpus) }
        let alone = texts.map { Self.scanned(index, bytes: $0) }
        let together = await withTaskGroup(of: (Int, [ChunkID]).self) { group in
            for (number, text) in texts.enumerated() {
                group.addTask { (number, Self.scanned(index, bytes: text)) }
            }
            var results = [[ChunkID]](repeating: [], count: texts.count)
            for await (number, matches) in group { results[number] = matches }
            return results
        }
        #expect(together == alone)
    }
}
