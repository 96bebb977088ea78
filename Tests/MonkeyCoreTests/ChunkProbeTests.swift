import Testing

@testable import MonkeyCore

/// The first stage's blocks of samples (`Probe.block`, looked up two at a
/// time): texts long enough to span several blocks, of lengths that end a
/// block on an odd and on an even sample, at chunk lengths that give every
/// gram shape (pairs of bytes at q = 5 and 6, units of 1 to 6 and longer).
struct ChunkProbeTests {
    @Test(arguments: [
        ("ab", [1, 2, 9, 17, 33, 64]),
        ("abcdefghijklmnopqrstuvwxyz", [1, 4, 5, 6, 7, 9, 12, 64]),
        ("abcdefghijklmnopqrstuvwxyz0123456789.,;:!?", [2, 3, 5, 7, 9, 64]),
        ("αβγδεζηθικλμνξοπρστυφχψω", [4, 5, 9]),
    ])
    func findsEveryWindowOfTextsSpanningManyBlocks(alphabet: String, chunkLengths: [Int]) throws {
        var random = WyRand(seed: 64 &+ UInt64(alphabet.utf8.count))
        let corpus = try CorpusFixtures.randomCorpus(alphabet: alphabet, works: 4, longest: 300, using: &random)
        for chunkLength in chunkLengths {
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            for length in [index.gramStride * Probe.block + 1, 700, 701, 702] {
                let text = ChunkIndexTests.text(for: corpus, length: length, using: &random)
                let expected = ChunkIndexTests.referenceMatches(of: corpus, chunkLength: chunkLength, text: text)
                #expect(ChunkIndexTests.scanned(index, symbols: text) == expected, "K=\(chunkLength) n=\(length)")
                #expect(
                    ChunkIndexTests.scanned(index, bytes: ChunkIndexTests.utf8(text, corpus)) == expected,
                    "K=\(chunkLength) n=\(length)")
            }
        }
    }

    /// The grouped filter (a group of ⌈k/8⌉ bytes per prefix of q − 1
    /// symbols) where a group fits a 64-bit load and the bitmap 4 MiB;
    /// else the dense one.
    @Test(arguments: [
        ("abcdefghijklmnopqrstuvwxyz", 9, 4), ("abcdefghijklmnopqrstuvwxyz", 7, 4),
        ("abcdefghijklmnopqrstuvwxyz0123456789.,;:!?", 9, 6), ("ab", 9, 1), ("ab", 40, 0),
        ("αβγδεζηθικλμνξοπρστυφχψω", 9, 3),
    ])
    func groupsTheFilterWhereAGroupFitsALoad(alphabet: String, chunkLength: Int, groupBytes: Int) throws {
        let text = String(repeating: String(alphabet.prefix(1)), count: 50)
        let corpus = try CorpusFixtures.corpus([("a.txt", text)], alphabet: alphabet)
        let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
        #expect(index.groupBytes == groupBytes)
        #expect(index.filterBytes <= 4 << 20 + 16)
    }
}
