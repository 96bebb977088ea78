import Testing

@testable import MonkeyCore

/// Seeded texts from the kernel are the function of monkeyd(8), bit for bit.
struct TypistSeededTests {
    /// The vectors of monkeyd(8) and more (`seededTypingVectors`).
    @Test(arguments: seededTypingVectors)
    func vectors(seed: UInt64, id: UInt64, monkeys: Int, letters: String, expected: String) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
        var typist = Typist()
        let batch = typist.type(
            TypingFixture.job(alphabet, monkeys: monkeys, count: 1, seed: TypingSeed(seed), firstID: id))
        #expect(TypingFixture.texts(batch) == [expected])
    }

    /// Every alphabet size from 1 to 256 (single-byte up to 95, mixed
    /// beyond), several lengths and ids, in batches that keep only their
    /// newest texts.
    @Test(arguments: Array(1...256))
    func everyAlphabetSize(size: Int) throws {
        let letters = TypingFixture.mixed(size)
        let alphabet = try TypingFixture.alphabet(letters)
        let ready = TypingAlphabet(alphabet)
        var typist = Typist()
        for (monkeys, firstID) in [(1, UInt64(1)), (17, 1 << 33), (100, UInt64(size) * 7_919)] {
            let seed = TypingSeed(UInt64(size) &* 0x1234_5678_9abc)
            let batch = typist.type(
                TypingFixture.job(ready, monkeys: monkeys, count: 5, seed: seed, firstID: firstID, keep: 3))
            let expected = (2..<5).map {
                SeededTyping.text(seed: seed.value, id: firstID + UInt64($0), monkeys: monkeys, alphabet: alphabet)
            }
            #expect(TypingFixture.texts(batch) == expected, "size \(size), \(monkeys) monkeys")
            #expect(batch.firstKeptID == firstID + 2)
        }
    }

    /// Alphabets of characters of two, three and four bytes, and sizes past 256.
    @Test(arguments: [
        "αβγδεζηθικλμνξοπρστυφχψω", "日本語の文字", "🐒🍌🌴", "a🐒", TypingFixture.wide(1000),
    ])
    func multiByteAlphabets(letters: String) throws {
        let alphabet = try TypingFixture.alphabet(letters)
        var typist = Typist()
        let seed = TypingSeed(2_718)
        let batch = typist.type(
            TypingFixture.job(TypingAlphabet(alphabet), monkeys: 333, count: 12, seed: seed, firstID: 40))
        let expected = (0..<12).map {
            SeededTyping.text(seed: 2_718, id: 40 + UInt64($0), monkeys: 333, alphabet: alphabet)
        }
        #expect(TypingFixture.texts(batch) == expected)
    }

    /// A seeded batch does not touch the random state it was handed, and
    /// the same id gives the same text in any batch.
    @Test func seededBatchesAreFunctionsOfTheirIDs() throws {
        var typist = Typist()
        let alphabet = TypingAlphabet.lowercaseLatin
        let seed = TypingSeed(31)
        let whole = typist.type(TypingFixture.job(alphabet, monkeys: 50, count: 10, seed: seed, random: 5))
        let tail = typist.type(TypingFixture.job(alphabet, monkeys: 50, count: 4, seed: seed, firstID: 7, random: 6))
        #expect(Array(TypingFixture.texts(whole).suffix(4)) == TypingFixture.texts(tail))
        var untouched = WyRand(seed: 5)
        var after = whole.random
        #expect(after.next() == untouched.next())
    }
}
