import Testing

@testable import MonkeyCore

/// Unseeded texts from the kernel are the method of `UniformDigits`, read
/// one digit at a time (`TypingFixture.unseededTexts`): group tables, word
/// stores and the carry between entries change nothing.
struct TypistUnseededTests {
    /// Every single-byte size: each shape of draw the kernel unrolls, and the others.
    @Test(arguments: Array(1...95))
    func singleByteTextsAreTheMethods(size: Int) throws {
        let letters = TypingFixture.ascii(size)
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
        var typist = Typist()
        for monkeys in [1, 5, 13, 64, 100, 1001] {
            let batch = typist.type(TypingFixture.job(alphabet, monkeys: monkeys, count: 7, random: UInt64(size)))
            let expected = TypingFixture.unseededTexts(
                random: UInt64(size), letters: letters, perDraw: alphabet.charactersPerDraw, monkeys: monkeys,
                count: 7)
            #expect(TypingFixture.texts(batch) == expected, "size \(size), \(monkeys) monkeys")
        }
    }

    @Test(arguments: ["äöü🐒", "αβγδεζηθικλμνξοπρστυφχψω", TypingFixture.mixed(256), TypingFixture.wide(65_536)])
    func multiByteTextsAreTheMethods(letters: String) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
        var typist = Typist()
        for monkeys in [1, 9, 250] {
            let batch = typist.type(TypingFixture.job(alphabet, monkeys: monkeys, count: 6, random: 77))
            let expected = TypingFixture.unseededTexts(
                random: 77, letters: letters, perDraw: alphabet.charactersPerDraw, monkeys: monkeys, count: 6)
            #expect(TypingFixture.texts(batch) == expected, "\(monkeys) monkeys")
        }
    }

    /// Entries that are not kept draw from the same stream: the kept ones
    /// are the newest of what a batch keeping all would type.
    @Test func droppedEntriesAreTypedAllTheSame() throws {
        var typist = Typist()
        for alphabet in [TypingAlphabet.lowercaseLatin, TypingAlphabet(try TypingFixture.alphabet("äöü🐒"))] {
            let all = typist.type(TypingFixture.job(alphabet, monkeys: 37, count: 20, random: 9))
            let newest = typist.type(TypingFixture.job(alphabet, monkeys: 37, count: 20, keep: 6, random: 9))
            #expect(TypingFixture.texts(newest) == Array(TypingFixture.texts(all).suffix(6)))
            #expect(newest.firstKeptID == 15)
            var left = all.random
            var right = newest.random
            #expect(left.next() == right.next())
        }
    }

    /// The random state after a batch has moved on by the draws it took; a
    /// batch from it types on, one from the same state types the same.
    @Test func theRandomStateGoesOn() throws {
        var typist = Typist()
        let alphabet = TypingAlphabet.lowercaseLatin
        let first = typist.type(TypingFixture.job(alphabet, monkeys: 26, count: 1, random: 4))
        var job = TypingFixture.job(alphabet, monkeys: 26, count: 1)
        job.random = first.random
        let second = typist.type(job)
        #expect(TypingFixture.texts(first) != TypingFixture.texts(second))
        let again = typist.type(TypingFixture.job(alphabet, monkeys: 26, count: 1, random: 4))
        #expect(TypingFixture.texts(first) == TypingFixture.texts(again))
        let one = TypingAlphabet(try TypingFixture.alphabet("x"))
        let constant = typist.type(TypingFixture.job(one, monkeys: 4, count: 2, random: 4))
        #expect(TypingFixture.texts(constant) == ["xxxx", "xxxx"])
    }

    @Test func charactersAndKeptTextsAreCounted() throws {
        var typist = Typist()
        let batch = typist.type(
            TypingFixture.job(TypingAlphabet.lowercaseLatin, monkeys: 1000, count: 30, keep: 100))
        #expect(batch.charactersTyped == 30_000)
        #expect(batch.kept.count == 30 && batch.kept.bytes.count == 30_000)
        let none = typist.type(TypingFixture.job(TypingAlphabet.lowercaseLatin, monkeys: 1000, count: 30, keep: 0))
        #expect(none.kept.count == 0 && none.kept.bytes.isEmpty && none.charactersTyped == 30_000)
        let empty = typist.type(TypingFixture.job(TypingAlphabet.lowercaseLatin, monkeys: 5, count: 0))
        #expect(empty.kept.count == 0 && empty.charactersTyped == 0 && empty.hitCount == 0)
    }
}
