import Foundation
import Testing

@testable import MonkeyCore

/// `p` against counting every possible entry, for every short target.
struct OddsBruteForceTests {
    static let longestTarget = 4
    static let longestEntry = 8

    /// For entries of `length` characters over `k` letters: how many contain
    /// each target of 1 to 4 letters, the targets numbered by `code`.
    static func containingCounts(k: Int, length: Int) -> [Int] {
        var counts = [Int](repeating: 0, count: code(length: longestTarget + 1, value: 0, k: k))
        var seenIn = [Int](repeating: -1, count: counts.count)
        var letters = [Int](repeating: 0, count: length)
        var total = 1
        for _ in 0..<length { total *= k }
        for entry in 0..<total {
            var rest = entry
            for position in 0..<length {
                letters[position] = rest % k
                rest /= k
            }
            for start in 0..<length {
                var value = 0
                for size in 1...longestTarget where start + size <= length {
                    value = value * k + letters[start + size - 1]
                    let target = code(length: size, value: value, k: k)
                    if seenIn[target] != entry {
                        seenIn[target] = entry
                        counts[target] += 1
                    }
                }
            }
        }
        return counts
    }

    /// Targets numbered by length, then by their letters read as a base-k number.
    static func code(length: Int, value: Int, k: Int) -> Int {
        var offset = 0
        var power = 1
        for _ in 1..<max(length, 1) {
            power *= k
            offset += power
        }
        return offset + value
    }

    static func target(code: Int, k: Int, letters: [Unicode.Scalar]) -> String {
        var length = 1
        var first = 0
        var power = k
        while code >= first + power {
            first += power
            power *= k
            length += 1
        }
        var value = code - first
        var scalars = [Unicode.Scalar](repeating: " ", count: length)
        for position in stride(from: length - 1, through: 0, by: -1) {
            scalars[position] = letters[value % k]
            value /= k
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// Every target of 1 to 4 letters, self-overlapping ones (`aa`, `aba`,
    /// `abab`) included, in entries of 1 to 8: p·k^N is the count.
    @Test(arguments: ["ab", "abc", "äö", "🐒é🌴"])
    func everyShortTargetMatchesCounting(letters: String) throws {
        let alphabet = try alphabet(letters)
        let scalars = Array(letters.unicodeScalars)
        let k = scalars.count
        for length in 1...Self.longestEntry {
            let counts = Self.containingCounts(k: k, length: length)
            let entries = pow(Double(k), Double(length))
            for code in 0..<counts.count {
                let target = Self.target(code: code, k: k, letters: scalars)
                let odds = try #require(Odds(target: target, monkeys: length, alphabet: alphabet))
                let count = Double(counts[code])
                let p = odds.probability.doubleValue
                #expect((p * entries).rounded() == count, "\(target) in \(length): \(p * entries) vs \(count)")
                #expect(abs(p * entries - count) <= 1e-12 * count, "\(target) in \(length)")
                #expect(odds.isPossible == (target.unicodeScalars.count <= length), "\(target) in \(length)")
                #expect(abs(p + odds.complement.doubleValue - 1) < 1e-15, "\(target) in \(length)")
            }
        }
    }

    /// What makes a character cost O(m): at most m moves back to a state
    /// other than 0, whatever the target (Simon's bound).
    @Test func fewMovesLeadBackAnywhereButZero() {
        var random = WyRand(seed: 3)
        var targets: [[Int]] = [Array(repeating: 0, count: 300), (0..<300).map { $0 % 2 }, (0..<300).map { $0 % 7 }]
        var fibonacci: [[Int]] = [[0], [0, 1]]
        while fibonacci[fibonacci.count - 1].count < 300 {
            fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2])
        }
        targets.append(fibonacci[fibonacci.count - 1])
        for _ in 0..<200 {
            let k = Int(random.next(below: 3)) + 2
            targets.append((0..<Int(random.next(below: 300) + 1)).map { _ in Int(random.next(below: UInt64(k))) })
        }
        for target in targets {
            let automaton = HitAutomaton(target: target, alphabetSize: 7)
            #expect(automaton.backMoveCount <= target.count, "\(target)")
        }
    }

    @Test func charactersOutsideTheAlphabetGiveZero() throws {
        let odds = try #require(Odds(target: "abz", monkeys: 8, alphabet: try alphabet("abc")))
        #expect(odds.probability.isZero)
        #expect(odds.complement == .one)
        #expect(odds.impossibility?.description == #"the alphabet lacks "z""#)
        #expect(odds.expectedEntries == nil)
    }
}

/// `p` and the figures against exact values computed independently, with
/// Conway's correlation polynomial in Python's integers
/// (scripts/odds-reference.py prints every constant below).
struct OddsReferenceTests {
    /// 256 characters: printable ASCII, then U+00A0 ... U+0140.
    static let wide: Alphabet = {
        var text = ""
        for value in UInt32(0x20)...0x7E { text.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        for value in UInt32(0xA0)..<(0xA0 + 161) {
            if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
        }
        return (try? Alphabet(validating: text, limit: 256)) ?? .lowercaseLatin
    }()

    /// 1024 characters of period 7: 146 borders, so many moves back.
    static let periodic = String(String(repeating: "monkey!", count: 147).prefix(1024))

    /// How far `value` is from `mantissa` × 10^`exponent`, relatively.
    static func relativeError(_ value: WideNumber, _ mantissa: Double, _ exponent: Int) -> Double {
        let (digits, decimalExponent) = value.decimalDigits(significantDigits: 15)
        let scaled = Double(digits) / 1e14 * pow(10, Double(decimalExponent - exponent))
        return abs(scaled - mantissa) / mantissa
    }

    @Test(
        arguments: [
            ("abc", "abcdefghijklmnopqrstuvwxyz", 3, 5.689_576_695_493_855, -5),
            ("abracadabra", "abcdefghijklmnopqrstuvwxyz", 10000, 2.721_815_359_337_605, -12),
            ("abababababababababab", "ab", 10000, 7.114_121_210_420_754, -3),
            (String(repeating: "a", count: 1024), "abcdefghijklmnopqrstuvwxyz", 1024, 1.167_593_524_948_258, -1449),
            (periodic, "!ekmnoy", 10000, 3.738_847_259_992_109, -862),
        ] as [(String, String, Int, Double, Int)])
    func probability(target: String, letters: String, monkeys: Int, mantissa: Double, exponent: Int) throws {
        let odds = try #require(Odds(target: target, monkeys: monkeys, alphabet: try alphabet(letters)))
        #expect(Self.relativeError(odds.probability, mantissa, exponent) < 1e-11, "\(odds.probability)")
    }

    /// The limits: a target of 1,024 over 256 characters, 10,000 monkeys.
    /// About a second in a debug build, 10 ms in a release build.
    @Test func worstCaseWithinTheLimits() throws {
        let odds = try #require(Odds(target: Self.periodic, monkeys: 10000, alphabet: Self.wide))
        #expect(Self.relativeError(odds.probability, 8.230_130_959_519_931, -2463) < 1e-11, "\(odds.probability)")
        let figures = odds.figures(interval: .defaultTick, typed: 7_000_000_000)
        #expect(figures.pHit == "8.230e-2463")
        #expect(figures.expectedEntries == "1.215e+2462")
        #expect(figures.expectedSeconds == "1.215e+2461")
        #expect(figures.chance == "5.761e-2453")
        let shortest = try #require(Odds(target: Self.periodic, monkeys: 1024, alphabet: Self.wide))
        #expect(Self.relativeError(shortest.probability, 9.168_019_337_774_236, -2467) < 1e-11)
        #expect(shortest.probability.formatted == "9.168e-2467")
    }

    /// p near 1: 1 − p is computed on its own, not by subtraction.
    @Test func almostCertainHits() throws {
        let letter = try #require(Odds(target: "a", monkeys: 10000, alphabet: .lowercaseLatin))
        // 1 − p = (25/26)^10000.
        #expect(Self.relativeError(letter.complement, 4.640_951_311_105_831, -171) < 1e-11, "\(letter.complement)")
        #expect(abs(letter.probability.doubleValue - 1) < 1e-14)
        let figures = letter.figures(interval: .defaultTick, typed: 3)
        #expect(figures.pHit == "1")
        #expect(figures.expectedEntries == "1")
        #expect(figures.expectedSeconds == "1.000e-01")
        #expect(figures.chance == "1")
        // So sure that the values come near underflow and are rescaled on the way.
        let pair = try #require(Odds(target: "aab", monkeys: 10000, alphabet: try alphabet("ab")))
        #expect(Self.relativeError(pair.complement, 7.143_709_384_312_207, -921) < 1e-9, "\(pair.complement)")
        #expect(pair.probability.formatted == "1")
    }

    @Test func certainHits() throws {
        let odds = try #require(Odds(target: "aaa", monkeys: 5, alphabet: try alphabet("a")))
        #expect(odds.probability == .one)
        #expect(odds.complement.isZero)
        #expect(odds.figures(interval: .defaultTick, typed: 0).chance == "0")
        let figures = odds.figures(interval: .millisecond, typed: 1)
        #expect(figures.fields.map(\.value) == ["1", "1", "1.000e-03", "1"])
    }

    @Test func theWorkedExample() throws {
        // Target abc, 3 monkeys, 26 letters: p = 1/17,576.
        let odds = try #require(Odds(target: "abc", monkeys: 3, alphabet: .lowercaseLatin))
        let figures = odds.figures(interval: .defaultTick, typed: 10000)
        #expect(figures.fields.map(\.key) == Figures.fieldNames)
        #expect(figures.fields.map(\.value) == ["5.690e-05", "17576", "1.758e+03", "4.339e-01"])
        #expect(odds.figures(interval: Interval(nanoseconds: 1_000_000_000), typed: 0).expectedSeconds == "17576")
        #expect(odds.expectedEntries?.nearbyWholeNumber == 17576)
        #expect(figures.numbers.expectedSeconds.map { abs($0.doubleValue - 1757.6) < 1e-9 } == true)
    }

    @Test(
        arguments: [
            ("abc", 3, 5_000_000_000, "1"),
            ("abcdefghijk", 11, 3_000_000_000, "8.174e-07"),
            ("abcdefghijk", 11, 1, "2.725e-16"),
            ("abcdefghijk", 11, UInt64.max, "1"),
        ] as [(String, Int, UInt64, String)])
    func chanceOverBillionsOfEntries(target: String, monkeys: Int, typed: UInt64, expected: String) throws {
        let odds = try #require(Odds(target: target, monkeys: monkeys, alphabet: .lowercaseLatin))
        #expect(odds.figures(interval: .defaultTick, typed: typed).chance == expected)
    }

    @Test func noTargetHasNoOdds() throws {
        #expect(Odds(target: "", monkeys: 5, alphabet: .lowercaseLatin) == nil)
    }
}

/// Why a target can never be typed, and what the figures say then.
struct ImpossibilityTests {
    @Test(
        arguments: [
            ("monkey", 1, "abcdefghijklmnopqrstuvwxyz", "entries of 1 character cannot hold a 6-character target"),
            ("monkey", 5, "abcdefghijklmnopqrstuvwxyz", "entries of 5 characters cannot hold a 6-character target"),
            ("hey", 10, "abcdefghijklmnopqrstuvwx", #"the alphabet lacks "y""#),
            ("zyzzyx", 10, "abc", #"the alphabet lacks "z", "y" and "x""#),
            ("xyz", 10, "abcx", #"the alphabet lacks "y" and "z""#),
            (
                "to be", 2, "abcdefghijklmnopqrstuvwxyz",
                #"the alphabet lacks " ", and entries of 2 characters cannot hold a 5-character target"#
            ),
            ("a\"b\\", 10, "ab", #"the alphabet lacks "\"" and "\\""#),
            ("ae\u{301}", 10, "ae", #"the alphabet lacks U+0301"#),
            ("a\u{200B}b\u{A0}", 10, "ab", #"the alphabet lacks U+200B and U+00A0"#),
            ("🐒ü", 10, "abc", #"the alphabet lacks "🐒" and "ü""#),
            (
                "abcdefghijklmnop", 100, "xyz",
                #"the alphabet lacks "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" and 6 more"#
            ),
        ] as [(String, Int, String, String)])
    func sentence(target: String, monkeys: Int, letters: String, expected: String) throws {
        let odds = try #require(Odds(target: target, monkeys: monkeys, alphabet: try alphabet(letters)))
        let impossibility = try #require(odds.impossibility)
        #expect(impossibility.description == expected)
        #expect(odds.probability.isZero)
        let figures = odds.figures(interval: .defaultTick, typed: 1_000_000)
        #expect(figures.fields.map(\.value) == ["0", "never", "never", "0"])
        #expect(figures.numbers.expectedEntries == nil && figures.numbers.expectedSeconds == nil)
    }

    @Test func missingCharactersAreListedOnceInTargetOrder() throws {
        let impossibility = try #require(
            Impossibility(target: "zzyzx", monkeys: 10, alphabet: try alphabet("ab")))
        #expect(impossibility.missingCharacters == ["z", "y", "x"])
        #expect(!impossibility.isEntryTooShort)
        #expect(Impossibility(target: "abba", monkeys: 4, alphabet: try alphabet("ab")) == nil)
    }
}
