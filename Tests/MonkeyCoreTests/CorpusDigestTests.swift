import Testing

@testable import MonkeyCore

/// SHA-256 against its published vectors, and the corpus digest's inputs.
struct CorpusDigestTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        (String(repeating: "x", count: 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
    ])
    func hashesAsFIPS180(text: String, digest: String) {
        var hash = SHA256()
        // In uneven pieces, to cross block ends.
        let bytes = Array(text.utf8)
        var start = 0
        var piece = 1
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            hash.update(bytes[start..<end])
            start = end
            piece = piece * 3 + 1
        }
        #expect(Self.hex(hash.finish()) == digest)
    }

    @Test func hashesEveryLengthAroundABlock() {
        // Each length hashed whole and byte by byte agrees: padding at 55, 56, 63, 64 bytes.
        for length in 50...130 {
            let bytes = [UInt8](repeating: 0x61, count: length)
            var whole = SHA256()
            whole.update(bytes)
            var pieces = SHA256()
            for byte in bytes { pieces.update([byte]) }
            #expect(whole.finish() == pieces.finish())
        }
    }

    @Test func changesWithTheNamesTheTextsTheAlphabetAndTheChunk() throws {
        let base = try CorpusFixtures.corpus([("a.txt", "to be"), ("b.txt", "or not")])
        let digests = [
            CorpusDigest(corpus: base, chunkLength: 3),
            CorpusDigest(corpus: base, chunkLength: 4),
            CorpusDigest(corpus: try CorpusFixtures.corpus([("a.txt", "to be"), ("c.txt", "or not")]), chunkLength: 3),
            CorpusDigest(
                corpus: try CorpusFixtures.corpus([("a.txt", "to bee"), ("b.txt", "or not")]), chunkLength: 3),
            CorpusDigest(corpus: try CorpusFixtures.corpus([("a.txt", "to beo"), ("b.txt", "r not")]), chunkLength: 3),
            CorpusDigest(
                corpus: try CorpusFixtures.corpus(
                    [("a.txt", "to be"), ("b.txt", "or not")], alphabet: "zyxwvutsrqponmlkjihgfedcba"),
                chunkLength: 3),
        ]
        #expect(Set(digests).count == digests.count)
        // The same normalised text from different files: the same digest.
        let same = try CorpusFixtures.corpus([("a.txt", "TO BE!"), ("b.txt", "or, not")])
        #expect(CorpusDigest(corpus: same, chunkLength: 3) == digests[0])
        #expect(CorpusDigest(hexadecimal: digests[0].description) == digests[0])
        #expect(digests[0].description.count == 64)
        #expect(CorpusDigest(hexadecimal: "xyz") == nil)
        #expect(CorpusDigest(hexadecimal: String(repeating: "G", count: 64)) == nil)
    }

    /// The documented bytes, hashed by hand, give the digest.
    @Test func hashesTheDocumentedBytes() throws {
        let corpus = try CorpusFixtures.corpus([("a.txt", "é!")], alphabet: "é")
        var bytes = Array("monkeyd corpus 1\n".utf8)
        bytes += [2, 0, 0, 0, 0xC3, 0xA9]
        bytes += [7, 0, 0, 0]
        bytes += [1, 0, 0, 0]
        bytes += [1, 0, 0, 0, 0x61]
        bytes += [2, 0, 0, 0, 0, 0, 0, 0, 0xC3, 0xA9]
        var hash = SHA256()
        hash.update(bytes)
        #expect(CorpusDigest(corpus: corpus, chunkLength: 7).bytes == hash.finish())
    }
}
