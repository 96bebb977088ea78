@testable import MonkeyCore

/// Alphabets, jobs and a plain reference for the typing kernel's tests.
enum TypingFixture {
    /// `size` printable ASCII characters (at most 95): a single-byte alphabet.
    static func ascii(_ size: Int) -> String {
        String(String.UnicodeScalarView((0x20..<(0x20 + UInt32(size))).compactMap(Unicode.Scalar.init)))
    }

    /// `size` characters of two bytes each, from U+0100 on.
    static func wide(_ size: Int) -> String {
        String(String.UnicodeScalarView((0x100..<(0x100 + UInt32(size))).compactMap(Unicode.Scalar.init)))
    }

    /// ASCII first, then two-byte characters: single-byte up to 95, mixed beyond.
    static func mixed(_ size: Int) -> String {
        ascii(min(size, 95)) + wide(max(0, size - 95))
    }

    static func alphabet(_ text: String) throws -> Alphabet {
        try Alphabet(validating: text, limit: 65_536)
    }

    static func job(
        _ alphabet: TypingAlphabet, monkeys: Int, count: Int, target: String = "", seed: TypingSeed? = nil,
        firstID: UInt64 = 1, keep: Int? = nil, best: Int = 0, random: UInt64 = 1, hitTextLimit: Int = 1000
    ) -> TypingJob {
        TypingJob(
            monkeys: monkeys, alphabet: alphabet,
            target: TypingTarget(TargetMatcher(target: target), alphabet: alphabet),
            seed: seed, firstID: firstID, count: count, keep: keep ?? count, bestLength: best,
            random: WyRand(seed: random), hitTextLimit: hitTextLimit)
    }

    /// Every kept text of a batch, as strings.
    static func texts(_ batch: TypedBatch) -> [String] {
        (0..<batch.kept.count).map { batch.kept.string(at: $0) }
    }

    /// What the session did before the kernel, entry by entry
    /// (`Session.type` with `TargetMatcher`): hits and each rise of best.
    struct Outcome: Equatable, CustomStringConvertible {
        var hitIDs: [UInt64] = []
        var improvements: [BestProgress] = []
        var best: Int

        var description: String {
            "hits \(hitIDs), best \(best), rises \(improvements.map { "\($0.id):\($0.length)" })"
        }
    }

    static func reference(texts: [String], firstID: UInt64, target: String, best: Int) -> Outcome {
        let matcher = TargetMatcher(target: target)
        var outcome = Outcome(best: best)
        for (index, text) in texts.enumerated() {
            let id = firstID + UInt64(index)
            let before = outcome.best
            if matcher.isHit(text) {
                outcome.hitIDs.append(id)
                outcome.best = matcher.length
            } else if !matcher.isEmpty {
                outcome.best = matcher.longestPrefix(in: text, longerThan: outcome.best)
            }
            if outcome.best > before { outcome.improvements.append(BestProgress(id: id, length: outcome.best)) }
        }
        return outcome
    }

    static func outcome(of batch: TypedBatch) -> Outcome {
        Outcome(hitIDs: batch.keptHitIDs, improvements: batch.improvements, best: batch.bestLength)
    }

    /// The unseeded method written plainly, one base-k digit at a time
    /// (no group tables, no carry buffer): `perDraw` digits of each
    /// accepted draw, in order, across entries.
    static func unseededTexts(
        random seed: UInt64, letters: String, perDraw: Int, monkeys: Int, count: Int
    ) -> [String] {
        let scalars = Array(letters.unicodeScalars)
        let k = UInt64(scalars.count)
        var random = WyRand(seed: seed)
        var span: UInt64 = 1
        for _ in 0..<perDraw { span = span &* k }
        let threshold = span == 0 ? 0 : (0 &- span) % span
        var pending: [Int] = []
        var texts: [String] = []
        for _ in 0..<count {
            var text = String.UnicodeScalarView()
            for _ in 0..<monkeys {
                if k == 1 {
                    text.append(scalars[0])
                    continue
                }
                if pending.isEmpty {
                    var draw = random.next()
                    while span != 0 && draw.multipliedFullWidth(by: span).low < threshold { draw = random.next() }
                    var fraction = draw
                    for _ in 0..<perDraw {
                        let product = fraction.multipliedFullWidth(by: k)
                        pending.append(Int(product.high))
                        fraction = product.low
                    }
                }
                text.append(scalars[pending.removeFirst()])
            }
            texts.append(String(text))
        }
        return texts
    }
}

/// Seeded texts: monkeyd(8)'s test vectors (the first six), and more from
/// the independent implementation of its specification
/// (scripts/odds-reference.py `seeded_text`): seed, id, monkeys, alphabet, text.
let seededTypingVectors: [(UInt64, UInt64, Int, String, String)] = [
    (0, 1, 10, "abcdefghijklmnopqrstuvwxyz", "mtwaanvqux"),
    (42, 1, 10, "abcdefghijklmnopqrstuvwxyz", "qjbeibupwl"),
    (42, 2, 10, "abcdefghijklmnopqrstuvwxyz", "kvgrvtmnqr"),
    (18_446_744_073_709_551_615, 7, 12, "abcdefghijklmnopqrstuvwxyz", "hzmqfjrgdsuj"),
    (2024, 1_000_000, 8, "01", "11110100"),
    (7, 3, 6, "äöü🐒", "üöä🐒ä🐒"),
    (12_345, 1, 40, "abcdefghijklmnopqrstuvwxyz", "lxvsmbfywzxywvaqahrjwzylugywjhtvaqcribfo"),
    (12_345, 1000, 40, "abcdefghijklmnopqrstuvwxyz", "truufrzpkwmhneqrqbbsfteoarypgeonfrxfyohc"),
    (3, 1 << 40, 40, "01", "0110100001011100100010000110111100010110"),
    (99, 17, 40, TypingFixture.ascii(95), "eDBV{N\\Tu49ut+c%9)8XEjkK0UT~Qxwp` PaGl?S"),
    (5, 2, 24, "αβγδεζηθικλμνξοπρστυφχψω", "ζσσπουσωχχξχζευδιιτχμεωξ"),
    (8, 9, 20, TypingFixture.wide(256), "ŏģƹǤǩęľǡǼǙįǡǻĖĦĊœǤƙƋ"),
    (0, 18_446_744_073_709_551_615, 16, "x", "xxxxxxxxxxxxxxxx"),
    (77, 4, 30, "a🐒é 日", "aéé🐒éa a🐒aé 🐒a a🐒🐒 🐒🐒  ééaa日éé"),
]
