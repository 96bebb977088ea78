import Foundation
import Testing

@testable import MonkeyCore

/// The expected coverage against the formula evaluated by brute force:
/// each character's dᵢ from the set of strings of its windows, each term
/// by repeated multiplication and by the C library's log1p and expm1.
struct ExpectedCoverageTests {
    /// dᵢ for every character: distinct strings among the windows of its work that hold it.
    static func distinctWindows(_ corpus: Corpus, chunkLength: Int) -> [Int] {
        var result: [Int] = []
        for work in corpus.works {
            for position in work.range {
                var strings = Set<[UInt8]>()
                if work.count >= chunkLength {
                    for start in max(
                        work.start, position - chunkLength + 1)...min(position, work.start + work.count - chunkLength)
                    {
                        strings.insert(Array(corpus.symbols[start..<(start + chunkLength)]))
                    }
                }
                result.append(strings.count)
            }
        }
        return result
    }

    /// (1 − x)^z for whole z by repeated squaring: no logarithm.
    static func power(_ base: Double, _ exponent: UInt64) -> Double {
        var result = 1.0
        var square = base
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result *= square }
            square *= square
            remaining >>= 1
        }
        return result
    }

    /// Term by term with `power`: 1 − x loses digits of a tiny x, so only good to about 1e-8.
    static func bruteForce(_ distinct: [Int], k: Int, chunkLength: Int, windows: UInt64) -> Double {
        var strings = 1.0
        for _ in 0..<chunkLength { strings *= Double(k) }
        let sum = distinct.reduce(0.0) { $0 + (1 - power(1 - Double($1) / strings, windows)) }
        return sum / Double(distinct.count)
    }

    /// Term by term with the C library's functions, not the core's.
    static func libraryForm(_ distinct: [Int], k: Int, chunkLength: Int, windows: UInt64) -> Double {
        var strings = 1.0
        for _ in 0..<chunkLength { strings *= Double(k) }
        let sum = distinct.reduce(0.0) {
            $0 - Foundation.expm1(Double(windows) * Foundation.log1p(-Double($1) / strings))
        }
        return sum / Double(distinct.count)
    }

    @Test(arguments: ["ab", "abc", "abcdefghijklmnopqrstuvwxyz"])
    func agreesWithTheFormulaEvaluatedPlainly(alphabet: String) throws {
        var random = WyRand(seed: 71 &+ UInt64(alphabet.count))
        for round in 0..<20 {
            let corpus = try CorpusFixtures.randomCorpus(
                alphabet: alphabet, works: 1 + round % 4, longest: 60, using: &random)
            let chunkLength = 1 + Int(random.next(below: 7))
            let index = ChunkIndex(corpus: corpus, chunkLength: chunkLength)
            let expected = ExpectedCoverage(index: index)
            let distinct = Self.distinctWindows(corpus, chunkLength: chunkLength)
            var histogram = [Int](repeating: 0, count: chunkLength + 1)
            for d in distinct { histogram[d] += 1 }
            #expect(expected.histogram == histogram)
            #expect(expected.distinctChunks == index.distinctChunks)
            for windows: UInt64 in [0, 1, 2, 10, 1000, 123_456, 10_000_000] {
                let plain = Self.bruteForce(distinct, k: alphabet.count, chunkLength: chunkLength, windows: windows)
                let library = Self.libraryForm(distinct, k: alphabet.count, chunkLength: chunkLength, windows: windows)
                let computed = expected.coverage(afterWindows: Double(windows))
                #expect(abs(computed - plain) <= 1e-8, "K=\(chunkLength) Z=\(windows)")
                #expect(abs(computed - library) <= 1e-14 + 1e-13 * library, "K=\(chunkLength) Z=\(windows)")
                #expect(abs(expected.uncovered(afterWindows: Double(windows)) - (1 - library)) <= 1e-13)
            }
        }
    }

    /// Tiny probabilities keep their digits: 1 − (1 − p)^Z ≈ Z·p when Z·p is small.
    @Test func keepsItsPrecisionForTinyProbabilities() {
        let expected = ExpectedCoverage(
            characterCount: 10, strings: 0x1p100, histogram: [0, 0, 0, 10], distinctChunks: 1)
        let one = expected.coverage(afterWindows: 1)
        #expect(abs(one / (3 * 0x1p-100) - 1) < 1e-12)
        let many = expected.coverage(afterWindows: 1e20)
        #expect(abs(many / (3e20 * 0x1p-100) - 1) < 1e-9)
        // 256^64 strings: still a positive number.
        let widest = ExpectedCoverage(characterCount: 1, strings: 0x1p512, histogram: [0, 1], distinctChunks: 1)
        #expect(widest.coverage(afterWindows: 1) > 0)
        #expect(widest.windows(toReach: 0.5).map { abs($0 / (0x1p512 * 0.6931471805599453) - 1) < 1e-9 } == true)
        // And huge Z: the whole corpus.
        #expect(expected.coverage(afterWindows: 1e40) == 1)
        #expect(expected.uncovered(afterWindows: 1e40) == 0)
    }

    @Test func invertsToTheFewestWindowsThatReachTheFraction() throws {
        var random = WyRand(seed: 5)
        let corpus = try CorpusFixtures.randomCorpus(
            alphabet: "abcdefghijklmnopqrstuvwxyz", works: 3, longest: 500, using: &random)
        for chunkLength in [1, 2, 3, 5] {
            let expected = ExpectedCoverage(index: ChunkIndex(corpus: corpus, chunkLength: chunkLength))
            for fraction in [0.01, 0.5, 0.9, 0.9999] {
                let windows = try #require(expected.windows(toReach: fraction))
                #expect(windows == windows.rounded(.down))
                #expect(expected.coverage(afterWindows: windows) >= fraction)
                #expect(expected.coverage(afterWindows: windows - 1) < fraction)
            }
        }
    }

    @Test func saysNeverWhenTheFractionCannotBeReached() throws {
        // "ab" is shorter than the chunk: 2 of 12 characters are never covered.
        let corpus = try CorpusFixtures.corpus([("a.txt", "abcdefghij"), ("b.txt", "ab")])
        let expected = ExpectedCoverage(index: ChunkIndex(corpus: corpus, chunkLength: 3))
        #expect(expected.histogram[0] == 2)
        #expect(expected.windows(toReach: 0.8) != nil)
        #expect(expected.windows(toReach: 0.84) == nil)
        #expect(expected.windows(toReach: 1) == nil)
        #expect(expected.windows(toReach: 0) == 0)
        #expect(expected.coverage(afterWindows: 1e30) == 10.0 / 12)
    }

    /// Past 2^53 windows the answer has 15 significant digits, not a whole number.
    @Test func invertsBeyondWholeNumbersOfDoubles() throws {
        let expected = ExpectedCoverage(characterCount: 1, strings: 0x1p80, histogram: [0, 1], distinctChunks: 1)
        let windows = try #require(expected.windows(toReach: 0.5))
        #expect(abs(windows / (0x1p80 * 0.6931471805599453) - 1) < 1e-13)
    }

    @Test func writesFractionsWithFourSignificantDigits() {
        #expect(ExpectedCoverage.text(ofFraction: 1) == "1")
        #expect(ExpectedCoverage.text(ofFraction: 0) == "0")
        #expect(ExpectedCoverage.text(ofFraction: 0.001234) == "1.234e-03")
        #expect(ExpectedCoverage.text(ofFraction: 1.2344e-7) == "1.234e-07")
        #expect(ExpectedCoverage.text(ofFraction: 0.5) == "5.000e-01")
    }
}
