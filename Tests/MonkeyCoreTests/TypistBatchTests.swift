import Testing

@testable import MonkeyCore

/// What a batch answers for the owner to merge: kept texts, hits, reported
/// hit texts, best progress, and the scanner hook.
struct TypistBatchTests {
    /// Hits of every entry are counted; the kept ones are named; the first
    /// few come back with their texts, the rest are counted.
    @Test(arguments: [nil, TypingSeed(8)] as [TypingSeed?])
    func hitsAreCountedKeptAndReported(seed: TypingSeed?) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet("ab"))
        var typist = Typist()
        let all = typist.type(
            TypingFixture.job(alphabet, monkeys: 6, count: 200, target: "abba", seed: seed, firstID: 50, random: 2))
        let texts = TypingFixture.texts(all)
        let expected = TypingFixture.reference(texts: texts, firstID: 50, target: "abba", best: 0)
        #expect(expected.hitIDs.count > 10, "the test needs hits")
        let batch = typist.type(
            TypingFixture.job(
                alphabet, monkeys: 6, count: 200, target: "abba", seed: seed, firstID: 50, keep: 30, random: 2,
                hitTextLimit: 4))
        #expect(batch.hitCount == expected.hitIDs.count)
        #expect(batch.keptHitIDs == expected.hitIDs.filter { $0 >= 220 })
        #expect(batch.reportedHitIDs == Array(expected.hitIDs.prefix(4)))
        #expect(batch.unreportedHitCount == expected.hitIDs.count - 4)
        #expect((0..<4).map { batch.hitTexts.string(at: $0) } == batch.reportedHitIDs.map { texts[Int($0 - 50)] })
        #expect(batch.improvements == expected.improvements)
        #expect(batch.bestLength == 4)
    }

    @Test func keptEntriesAreTheLogsEntries() throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet("ab🐒"))
        var typist = Typist()
        let batch = typist.type(
            TypingFixture.job(alphabet, monkeys: 4, count: 40, target: "a🐒", firstID: 1001, keep: 10, random: 6))
        let matcher = TargetMatcher(target: "a🐒")
        for index in 0..<10 {
            let entry = batch.keptEntry(index, numberOfFirst: 7)
            #expect(entry.id == 1031 + UInt64(index))
            #expect(entry.number == 37 + UInt64(index))
            #expect(entry.text == batch.kept.string(at: index))
            #expect(entry.text.unicodeScalars.count == 4)
            #expect(entry.isHit == matcher.isHit(entry.text))
        }
    }

    /// Best progress rises entry by entry as `Session.type` raised it: the
    /// first entry to reach each new best is named, with that best.
    @Test func eachRiseOfBestIsNamed() throws {
        var typist = Typist()
        let target = "tobeornottobe"
        var random: UInt64 = 10
        var best = 0
        var firstID: UInt64 = 1
        var rises: [BestProgress] = []
        // Batches one after another, each from the best the last answered.
        for _ in 0..<5 {
            let batch = typist.type(
                TypingFixture.job(
                    .lowercaseLatin, monkeys: 2000, count: 50, target: target, firstID: firstID, best: best,
                    random: random))
            let expected = TypingFixture.reference(
                texts: TypingFixture.texts(batch), firstID: firstID, target: target, best: best)
            #expect(batch.improvements == expected.improvements)
            #expect(batch.bestLength == expected.best)
            rises += batch.improvements
            best = batch.bestLength
            firstID += 50
            random += 1
        }
        #expect(rises.count >= 3, "\(rises)")
        #expect(rises.map(\.length) == rises.map(\.length).sorted() && Set(rises.map(\.length)).count == rises.count)
    }

    /// A scanner sees every text in id order, over the typed bytes, with
    /// the characters as alphabet indices: here it counts windows of three
    /// characters equal to one, checked against the strings.
    struct WindowCounter: TypedTextScanner {
        let window: [UInt16]
        let symbolOfByte: [UInt16]
        var ids: [UInt64] = []
        var found = 0

        mutating func scan(_ text: TypedText) {
            ids.append(text.id)
            let symbols =
                text.symbols.isEmpty ? text.bytes.map { symbolOfByte[Int($0)] } : Array(text.symbols)
            guard symbols.count >= window.count else { return }
            for start in 0...(symbols.count - window.count) where Array(symbols[start..<start + window.count]) == window
            {
                found += 1
            }
        }
    }

    @Test(arguments: ["abc", "αβγ", "a🐒c"])
    func scannersSeeEveryText(letters: String) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
        let scalars = Array(letters.unicodeScalars)
        let word = String(String.UnicodeScalarView([scalars[0], scalars[2], scalars[1]]))
        var counter = WindowCounter(window: [0, 2, 1], symbolOfByte: alphabet.symbolOfByte)
        var typist = Typist()
        for seed in [nil, TypingSeed(4)] as [TypingSeed?] {
            counter.ids = []
            counter.found = 0
            let batch = typist.type(
                TypingFixture.job(alphabet, monkeys: 40, count: 30, seed: seed, firstID: 9, random: 3),
                scanner: &counter)
            #expect(counter.ids == Array(9..<39))
            var expected = 0
            for text in TypingFixture.texts(batch) {
                let characters = Array(text.unicodeScalars)
                for start in 0...(characters.count - 3)
                where String(String.UnicodeScalarView(characters[start..<start + 3])) == word {
                    expected += 1
                }
            }
            #expect(expected > 0 && counter.found == expected)
        }
    }
}
