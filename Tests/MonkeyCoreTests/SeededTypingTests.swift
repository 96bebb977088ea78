import Testing

@testable import MonkeyCore

/// Reproducible typing: the vectors are those of monkeyd(8), computed by an
/// independent implementation of its specification (scripts/odds-reference.py).
struct SeededTypingTests {
    @Test(arguments: seededTypingVectors)
    func testVectors(seed: UInt64, id: UInt64, monkeys: Int, letters: String, expected: String) throws {
        let text = SeededTyping.text(seed: seed, id: id, monkeys: monkeys, alphabet: try alphabet(letters))
        #expect(text == expected)
    }

    @Test func mixAndStateAreSplitMix64s() {
        #expect(SeededTyping.mix(0) == 0)
        #expect(SeededTyping.mix(1) == 0x5692_161d_100b_05e5)
        #expect(SeededTyping.state(seed: 42, id: 1) == 0x989b_3f13_0a06_3869)
    }

    @Test func theSameInputsGiveTheSameText() throws {
        let letters = try alphabet("abcdefghijklmnopqrstuvwxyz ")
        for id in UInt64(1)...50 {
            let first = SeededTyping.text(seed: 9, id: id, monkeys: 40, alphabet: letters)
            #expect(SeededTyping.text(seed: 9, id: id, monkeys: 40, alphabet: letters) == first)
            // A shorter entry is the start of a longer one: characters are drawn in order.
            #expect(first.hasPrefix(SeededTyping.text(seed: 9, id: id, monkeys: 7, alphabet: letters)))
        }
    }

    @Test func otherIdsAndSeedsDiffer() {
        let texts = (UInt64(1)...1000).map {
            SeededTyping.text(seed: 1, id: $0, monkeys: 12, alphabet: .lowercaseLatin)
        }
        #expect(Set(texts).count == texts.count, "26^12 texts: 1000 ids should not collide")
        let seeds = (UInt64(0)...1000).map {
            SeededTyping.text(seed: $0, id: 1, monkeys: 12, alphabet: .lowercaseLatin)
        }
        #expect(Set(seeds).count == seeds.count)
        // Seed and id are not interchangeable.
        #expect(
            SeededTyping.text(seed: 2, id: 3, monkeys: 12, alphabet: .lowercaseLatin)
                != SeededTyping.text(seed: 3, id: 2, monkeys: 12, alphabet: .lowercaseLatin))
    }

    /// Fixed seeds, so the outcome never changes: these pass with a wide margin.
    @Test(arguments: ["abcdefghijklmnopqrstuvwxyz", "01", "αβγδε", "a🐒é ", "日本語の文字"])
    func charactersAreUniform(letters: String) throws {
        let alphabet = try alphabet(letters)
        let symbols = Array(letters.unicodeScalars)
        var counts = [Unicode.Scalar: Int]()
        for id in UInt64(1)...UInt64(symbols.count * 40) {
            for scalar in SeededTyping.text(seed: 31, id: id, monkeys: 10, alphabet: alphabet).unicodeScalars {
                counts[scalar, default: 0] += 1
            }
        }
        #expect(Set(counts.keys) == Set(symbols))
        let ordered = symbols.map { counts[$0, default: 0] }
        #expect(chiSquare(ordered) < chiSquareCritical(degreesOfFreedom: symbols.count - 1), "\(ordered)")
    }

    /// The first characters of consecutive ids, and of consecutive seeds, are
    /// independent: pairs of them are uniform too.
    @Test func neighbouringEntriesAreIndependent() throws {
        let letters = try alphabet("abcd")
        var byID = [Int](repeating: 0, count: 16)
        var bySeed = [Int](repeating: 0, count: 16)
        func first(_ seed: UInt64, _ id: UInt64) -> Int {
            Int(SeededTyping.text(seed: seed, id: id, monkeys: 1, alphabet: letters).utf8.first ?? 0) - 0x61
        }
        for index in UInt64(1)...4000 {
            byID[first(77, index) * 4 + first(77, index + 1)] += 1
            bySeed[first(index, 5) * 4 + first(index + 1, 5)] += 1
        }
        #expect(chiSquare(byID) < chiSquareCritical(degreesOfFreedom: 15), "\(byID)")
        #expect(chiSquare(bySeed) < chiSquareCritical(degreesOfFreedom: 15), "\(bySeed)")
    }

    @Test func seedsParseAsTheProtocolWritesThem() {
        #expect(TypingSeed(parsing: "0")?.value == 0)
        #expect(TypingSeed(parsing: "18446744073709551615")?.value == .max)
        #expect(TypingSeed(parsing: "007")?.value == 7)
        for bad in ["", "-1", "+1", "18446744073709551616", "1e3", " 1", "0x10", "１"] {
            #expect(TypingSeed(parsing: bad) == nil, "\(bad)")
        }
        #expect(TypingSeed(42).description == "42")
        #expect(TypingSeed(42) == TypingSeed(42) && TypingSeed(42) != TypingSeed(43))
        #expect(TypingSeed(42).state(ofEntry: 1) == SeededTyping.state(seed: 42, id: 1))
    }

    @Test func typingWithASeedIsTypingWithWyRand() throws {
        let letters = try alphabet("xyz🐒")
        var random = TypingSeed(5).generator(forEntry: 6)
        #expect(
            letters.typeString(length: 30, using: &random)
                == SeededTyping.text(seed: 5, id: 6, monkeys: 30, alphabet: letters))
        #expect(SeededTyping.text(seed: 5, id: 6, monkeys: 0, alphabet: letters) == "")
    }
}
