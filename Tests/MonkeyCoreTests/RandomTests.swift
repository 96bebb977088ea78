import Testing

@testable import MonkeyCore

struct RandomTests {
    /// Reference outputs of wyrand, computed independently: a changed
    /// generator would make every recorded seed replay differently.
    @Test(
        arguments: [
            (0, [0x111c_b3a7_8f59_a58e, 0xceab_d938_ff4e_856d, 0x61fb_5131_8f47_d2a4]),
            (42, [0xae4a_7cbf_dda9_b434, 0xe9cc_09d3_3d38_d9d2, 0xcb57_5651_2b93_433a]),
        ] as [(UInt64, [UInt64])])
    func knownSeedsGiveKnownValues(seed: UInt64, expected: [UInt64]) {
        var random = WyRand(seed: seed)
        #expect((0..<3).map { _ in random.next() } == expected)
    }

    @Test func sameSeedReplaysAndOtherSeedsDiffer() {
        var first = WyRand(seed: 12_345)
        var second = WyRand(seed: 12_345)
        var other = WyRand(seed: 12_346)
        let a = (0..<100).map { _ in first.next(below: 1000) }
        let b = (0..<100).map { _ in second.next(below: 1000) }
        let c = (0..<100).map { _ in other.next(below: 1000) }
        #expect(a == b)
        #expect(a != c)
    }

    @Test(arguments: [1, 2, 3, 7, 26, 256, 1000, 1 << 40, 3 << 62, UInt64.max - 1, UInt64.max] as [UInt64])
    func nextBelowStaysInRange(bound: UInt64) {
        var random = WyRand(seed: bound)
        for _ in 0..<10_000 {
            #expect(random.next(below: bound) < bound)
        }
    }

    @Test(arguments: [(26, 1), (3, 2), (7, 3), (256, 4), (1000, 5)] as [(Int, UInt64)])
    func nextBelowIsUniform(buckets: Int, seed: UInt64) {
        var random = WyRand(seed: seed)
        var counts = [Int](repeating: 0, count: buckets)
        for _ in 0..<(buckets * 400) {
            counts[Int(random.next(below: UInt64(buckets)))] += 1
        }
        #expect(chiSquare(counts) < chiSquareCritical(degreesOfFreedom: buckets - 1), "\(counts)")
    }

    /// With a bound of 3·2⁶² a modulo reduction would make the lowest quarter
    /// of the range twice as likely as the others; the thirds must be even.
    @Test(arguments: [7, 8, 9] as [UInt64])
    func noModuloBiasForLargeBounds(seed: UInt64) {
        let bound: UInt64 = 3 << 62
        var random = WyRand(seed: seed)
        var counts = [0, 0, 0]
        var biased = [0, 0, 0]
        for _ in 0..<30_000 {
            counts[Int(random.next(below: bound) >> 62)] += 1
            biased[Int((random.next() % bound) >> 62)] += 1
        }
        let critical = chiSquareCritical(degreesOfFreedom: 2)
        #expect(chiSquare(counts) < critical, "\(counts)")
        #expect(chiSquare(biased) > critical, "the test must be able to see modulo bias: \(biased)")
    }

    @Test func chiSquareCriticalValuesMatchTheTables() {
        // Tabulated values at p = 0.001.
        for (freedom, tabulated) in [(2, 13.816), (6, 22.458), (25, 52.620), (255, 330.5)] {
            let approximation = chiSquareCritical(degreesOfFreedom: freedom)
            #expect(abs(approximation - tabulated) / tabulated < 0.03, "\(freedom): \(approximation)")
        }
    }

    @Test(arguments: ["abcdefghijklmnopqrstuvwxyz", "01", "αβγδε", "a🐒é ", "日本語の文字"])
    func typedCharactersAreUniform(letters: String) throws {
        let alphabet = try alphabet(letters)
        let symbols = Array(letters.unicodeScalars)
        var random = WyRand(seed: 77)
        var counts = [Unicode.Scalar: Int]()
        for _ in 0..<(symbols.count * 100) {
            for scalar in alphabet.typeString(length: 10, using: &random).unicodeScalars {
                counts[scalar, default: 0] += 1
            }
        }
        #expect(Set(counts.keys) == Set(symbols))
        let ordered = symbols.map { counts[$0, default: 0] }
        #expect(chiSquare(ordered) < chiSquareCritical(degreesOfFreedom: symbols.count - 1), "\(ordered)")
    }

    @Test func typedPositionsAreIndependent() throws {
        // Pairs of neighbouring characters must be uniform too, not just single ones.
        let alphabet = try alphabet("abcd")
        var random = WyRand(seed: 8)
        var counts = [Int](repeating: 0, count: 16)
        for _ in 0..<2_000 {
            let text = Array(alphabet.typeString(length: 8, using: &random).utf8)
            for index in stride(from: 0, to: 8, by: 2) {
                counts[Int(text[index] - 0x61) * 4 + Int(text[index + 1] - 0x61)] += 1
            }
        }
        #expect(chiSquare(counts) < chiSquareCritical(degreesOfFreedom: 15), "\(counts)")
    }

    @Test func typeStringOfZeroLengthIsEmpty() throws {
        var random = WyRand(seed: 1)
        #expect(Alphabet.lowercaseLatin.typeString(length: 0, using: &random) == "")
        #expect(try alphabet("🐒").typeString(length: 0, using: &random) == "")
    }

    @Test func alphabetValidation() {
        #expect(throws: Alphabet.Problem.empty) { try Alphabet(validating: "", limit: 10) }
        #expect(throws: Alphabet.Problem.repeated("b")) { try Alphabet(validating: "abcb", limit: 10) }
        #expect(throws: Alphabet.Problem.tooMany(count: 4, limit: 3)) { try Alphabet(validating: "abcd", limit: 3) }
        #expect(throws: Alphabet.Problem.controlCharacter) { try Alphabet(validating: "a\u{9F}", limit: 10) }
        #expect(Alphabet.lowercaseLatin.count == 26)
    }
}
