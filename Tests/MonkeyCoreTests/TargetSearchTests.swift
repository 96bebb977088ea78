import Testing

@testable import MonkeyCore

/// The kernel's target search decides what `TargetMatcher` does: hits,
/// best progress and which entry raised it, on random inputs.
struct TargetSearchTests {
    /// Random targets over small alphabets (so that prefixes are typed
    /// often), over every filter width, with and without seeds, from
    /// several bests.
    @Test(arguments: ["ab", "abc", "abcd", "abcdefgh", "abcdefghijklmnopqrstuvwxyz", "αβγ", "aβ🐒"])
    func randomBatchesMatchTheMatcher(letters: String) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
        let scalars = Array(letters.unicodeScalars)
        var random = WyRand(seed: UInt64(scalars.count) * 1_000_003)
        var typist = Typist()
        for round in 0..<60 {
            let length = 1 + Int(random.next(below: 24))
            var target = String.UnicodeScalarView()
            for _ in 0..<length { target.append(scalars[Int(random.next(below: UInt64(scalars.count)))]) }
            // Now and then a character the alphabet lacks, which cuts what can be typed.
            if round % 7 == 3 { target.insert("!", at: target.index(target.startIndex, offsetBy: length / 2)) }
            let text = String(target)
            let monkeys = 1 + Int(random.next(below: 300))
            let best = round % 5 == 0 ? Int(random.next(below: UInt64(length + 1))) : 0
            let seed = round % 2 == 0 ? TypingSeed(random.next()) : nil
            let job = TypingFixture.job(
                alphabet, monkeys: monkeys, count: 40, target: text, seed: seed, firstID: 1 + random.next(below: 1000),
                best: best, random: random.next())
            let batch = typist.type(job)
            let expected = TypingFixture.reference(
                texts: TypingFixture.texts(batch), firstID: job.firstID, target: text, best: best)
            #expect(
                TypingFixture.outcome(of: batch) == expected,
                "target \(text), \(monkeys) monkeys, best \(best) at first")
            #expect(batch.hitCount == expected.hitIDs.count)
        }
    }

    /// Texts with prefixes of the target planted at every kind of place
    /// (the start, the end, across the 16-byte blocks, in the tail the
    /// block loop leaves), searched one after another as a batch would.
    @Test(
        arguments: [
            ("ab", "abbab"), ("abcd", "abcdabcdaab"), ("abcdefghijklmnopqrstuvwxyz", "tobeornottobe"),
            ("abcdefghijklmnopqrstuvwxyz ", "to be or not to be"), ("αβγδ", "αβγααδ"), ("xyz", "x"),
            ("abcdefghij", String(repeating: "abcdefghij", count: 110)),
        ] as [(String, String)])
    func plantedPrefixesAreFound(letters: String, target: String) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
        let ready = TypingTarget(TargetMatcher(target: target), alphabet: alphabet)
        let matcher = TargetMatcher(target: target)
        let scalars = Array(letters.unicodeScalars)
        let targetScalars = Array(target.unicodeScalars)
        var random = WyRand(seed: 5)
        var search = TargetSearch(ready)
        var best = 0
        var referenceBest = 0
        for round in 0..<400 {
            let length = Int(random.next(below: 120))
            var text = (0..<length).map { _ in scalars[Int(random.next(below: UInt64(scalars.count)))] }
            if round % 3 != 0 && !text.isEmpty {
                let prefix = min(1 + Int(random.next(below: UInt64(targetScalars.count))), text.count)
                let place =
                    round % 4 == 0 ? text.count - prefix : Int(random.next(below: UInt64(text.count - prefix + 1)))
                text.replaceSubrange(place..<place + prefix, with: targetScalars[0..<prefix])
            }
            let string = String(String.UnicodeScalarView(text))
            let bytes = Array(string.utf8)
            let isHit = bytes.withUnsafeBufferPointer { search.search($0, best: &best) }
            let referenceHit = matcher.isHit(string)
            referenceBest = referenceHit ? matcher.length : matcher.longestPrefix(in: string, longerThan: referenceBest)
            #expect(isHit == referenceHit, "\(string)")
            #expect(best == referenceBest, "\(string)")
            // Start again now and then, so that short needles are searched too.
            if round % 50 == 49 {
                best = 0
                referenceBest = 0
            }
        }
    }

    /// A best beyond what the alphabet can type (the alphabet changed)
    /// stays; a target seen whole is then only counted.
    @Test func bestsThatCannotMove() throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet("xyz"))
        var typist = Typist()
        let stuck = typist.type(TypingFixture.job(alphabet, monkeys: 50, count: 20, target: "abc", best: 2))
        #expect(stuck.bestLength == 2 && stuck.improvements.isEmpty && stuck.hitCount == 0)
        let whole = typist.type(TypingFixture.job(alphabet, monkeys: 50, count: 20, target: "x", best: 1))
        #expect(whole.bestLength == 1 && whole.improvements.isEmpty && whole.hitCount == 20)
        let empty = typist.type(TypingFixture.job(alphabet, monkeys: 50, count: 20, target: ""))
        #expect(empty.bestLength == 0 && empty.improvements.isEmpty && empty.hitCount == 0)
        let long = typist.type(TypingFixture.job(alphabet, monkeys: 3, count: 20, target: "xyzxyz", random: 3))
        #expect(long.hitCount == 0 && long.bestLength <= 3)
    }

    /// The filter weighs the rarest bytes: two for 26 letters, more for
    /// fewer letters, one for a needle of one byte.
    @Test func filterWidths() throws {
        func width(_ letters: String, _ target: String, characters: Int) throws -> Int {
            let alphabet = TypingAlphabet(try TypingFixture.alphabet(letters))
            return NeedleFilter(
                target: TypingTarget(TargetMatcher(target: target), alphabet: alphabet), characters: characters
            ).width
        }
        #expect(try width("abcdefghijklmnopqrstuvwxyz", "tobeornot", characters: 5) == 2)
        #expect(try width("abcdefghijklmnopqrstuvwxyz", "tobeornot", characters: 1) == 1)
        #expect(try width("abcd", "abcdabcd", characters: 8) == 4)
        #expect(try width("ab", String(repeating: "ab", count: 10), characters: 20) == 8)
    }
}
