import Foundation
import Testing

@testable import MonkeyCore

struct WideNumberTests {
    @Test func arithmeticKeepsTheExponentWide() {
        let tiny = WideNumber(256).power(1024).reciprocal
        #expect(tiny.significand == 1 && tiny.exponent == -8192)
        #expect((tiny * tiny).exponent == -16384)
        #expect((tiny / tiny) == .one)
        #expect((WideNumber(3) * WideNumber(0.5)) == WideNumber(1.5))
        #expect(WideNumber(6) / WideNumber(4) == WideNumber(1.5))
        #expect(WideNumber(10).reciprocal.doubleValue == 0.1)
        #expect(tiny.doubleValue == 0)
        #expect(tiny.reciprocal.doubleValue == .infinity)
        #expect(WideNumber(0x1p-1074).exponent == -1074, "a subnormal Double keeps its value")
        #expect(WideNumber.zero.doubleValue == 0)
    }

    @Test func additionAlignsExponents() {
        #expect(WideNumber(1) + WideNumber(2) == WideNumber(3))
        #expect(WideNumber(0.75) + .zero == WideNumber(0.75))
        #expect(WideNumber.zero + WideNumber(0.75) == WideNumber(0.75))
        let small = WideNumber(1).scaled(byPowerOfTwo: -2000)
        #expect(WideNumber(1) + small == WideNumber(1))
        #expect((small + small) == small.scaled(byPowerOfTwo: 1))
    }

    @Test func comparison() {
        let values = [
            WideNumber.zero, WideNumber(1).scaled(byPowerOfTwo: -5000), WideNumber(0.5), WideNumber(1),
            WideNumber(1.5), WideNumber(1).scaled(byPowerOfTwo: 5000),
        ]
        for (index, value) in values.enumerated() {
            for (otherIndex, other) in values.enumerated() {
                #expect((value < other) == (index < otherIndex), "\(value) < \(other)")
            }
        }
    }

    @Test func naturalLogarithmAtAnyExponent() {
        #expect(abs(WideNumber(256).power(1024).reciprocal.naturalLogarithm + 8192 * M_LN2) < 1e-9)
        #expect(abs(WideNumber(10).naturalLogarithm - M_LN10) < 1e-15)
        #expect(WideNumber.zero.naturalLogarithm == -.infinity)
    }

    /// The protocol's spelling: integers when whole and below 10^6, else `%.3e`.
    @Test(
        arguments: [
            (0, "0"), (1, "1"), (17576, "17576"), (999_999, "999999"), (1_000_000, "1.000e+06"),
            (999_960, "999960"), (999_999.6, "1.000e+06"), (999_949.9, "9.999e+05"), (2.5, "2.500e+00"),
            (0.5, "5.000e-01"), (5.689_576_695_493_855e-05, "5.690e-05"), (1757.6, "1.758e+03"),
            (1e-5, "1.000e-05"), (9.9996e-7, "1.000e-06"), (9.9994e-7, "9.999e-07"), (1e100, "1.000e+100"),
            (1.234_4e-300, "1.234e-300"), (17576.000_000_001, "17576"), (17576.1, "1.758e+04"),
            (0.999_999_999_999_9, "1"), (0x1p-1074, "4.941e-324"), (1.797_693_134_862_315_7e308, "1.798e+308"),
        ] as [(Double, String)])
    func formatting(value: Double, expected: String) {
        #expect(WideNumber(value).formatted == expected)
    }

    @Test func scientificAgreesWithCFormatting() {
        var random = WyRand(seed: 99)
        for _ in 0..<20_000 {
            // Exponents where pow(10, n) below is exact enough to find the boundaries.
            let value = Double(
                sign: .plus, exponent: Int(random.next(below: 1800)) - 900,
                significand: 1 + Double(random.next() >> 12) * 0x1p-52)
            let expected = String(format: "%.3e", value)
            let (mantissa, decimalExponent) = WideNumber(value).decimalDigits(significantDigits: 4)
            let printed = WideNumber(value).scientific
            // A value whose fifth digit is a 5 lies on a rounding boundary, where
            // an error of 1e-15 may round either way; any other must agree.
            let exact = value / pow(10, Double(decimalExponent - 3))
            let isBoundary = abs(exact - exact.rounded(.down) - 0.5) < 1e-9
            if !isBoundary {
                #expect(printed == expected, "\(value): \(mantissa) \(decimalExponent)")
            }
        }
    }

    /// Far outside a Double, against values computed with Python's decimal
    /// module (scripts/odds-reference.py prints them).
    @Test func formattingFarOutsideADouble() {
        #expect(WideNumber(2).power(8192).reciprocal.formatted == "9.168e-2467")
        #expect(WideNumber(26).power(1024).reciprocal.formatted == "1.168e-1449")
        #expect(WideNumber(26).power(1024).formatted == "8.565e+1448")
        #expect(WideNumber(10).power(5000).formatted == "1.000e+5000")
        #expect(WideNumber(10).power(5000).reciprocal.formatted == "1.000e-5000")
        // 9.99996 × 10^-3000 rounds up to the next decade.
        let nearlyDecade = WideNumber(0.999_996) * WideNumber(10).power(2999).reciprocal
        #expect(nearlyDecade.formatted == "1.000e-2999")
    }

    @Test func decimalDigitsOfWholeNumbers() {
        #expect(WideNumber(17576).decimalDigits(significantDigits: 4) == (1758, 4))
        #expect(WideNumber(17576).decimalDigits(significantDigits: 5) == (17576, 4))
        #expect(WideNumber(1).decimalDigits(significantDigits: 1) == (1, 0))
        #expect(WideNumber(9.5).decimalDigits(significantDigits: 1) == (1, 1))
        #expect(WideNumber.zero.decimalDigits(significantDigits: 4) == (0, 0))
    }
}

struct ElementaryTests {
    /// Uniform in [0, 1).
    static let fractions: [Double] = {
        var random = WyRand(seed: 5)
        return (0..<3000).map { _ in Double(random.next() >> 11) * 0x1p-53 }
    }()

    /// Positive Doubles from the whole range, subnormals too.
    static let positives: [Double] = {
        var random = WyRand(seed: 6)
        var values: [Double] = [1, 2, 0.5, 1.414_213_562_373_095, 1.414_213_562_373_096, 0x1p-1074, 1e-300, 1e300]
        for _ in 0..<3000 { values.append(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF)) }
        return values.filter { $0 > 0 && $0.isFinite } + fractions.map { $0 * 4 }.filter { $0 > 0 }
    }()

    /// Within a few units in the last place.
    static let tolerance = 8e-16

    @Test func logarithm() {
        for x in Self.positives {
            let expected = Foundation.log(x)
            #expect(abs(Elementary.log(x) - expected) <= Self.tolerance * abs(expected) + 1e-300, "\(x)")
        }
    }

    @Test func logarithmOfOnePlus() {
        for x in Self.fractions.map({ $0 - 0.5 }) + [1e-20, -1e-20, 0.5, -0.5, 0.7, 3, 1e10] {
            let expected = Foundation.log1p(x)
            #expect(abs(Elementary.log1p(x) - expected) <= Self.tolerance * abs(expected), "\(x)")
        }
    }

    @Test func exponential() {
        for x in Self.fractions.map({ $0 * 1400 - 700 }) + [0, -700, 709, 1e-20, -1e-20] {
            let expected = Foundation.exp(x)
            #expect(abs(Elementary.exp(x) - expected) <= Self.tolerance * expected, "\(x)")
        }
        #expect(Elementary.exp(720) == .infinity)
        #expect(Elementary.exp(-750) == 0)
    }

    @Test func floorAndNearestWholeWithoutTheCLibrary() {
        for x in Self.fractions.map({ ($0 - 0.5) * 1e6 }) + [0, -0.5, 0.5, 2, -2, 1e15 + 0.5, -1e15 - 0.5, 0x1p52] {
            #expect(Elementary.floor(x) == Foundation.floor(x), "\(x)")
            #expect(Elementary.nearestWhole(x) == Foundation.floor(x + 0.5), "\(x)")
        }
    }

    @Test func exponentialMinusOne() {
        for x in Self.fractions.map({ $0 * 2 - 1 }) + [1e-20, -1e-20, 0.349, -0.349, 0.351, 30, -40] {
            let expected = Foundation.expm1(x)
            #expect(abs(Elementary.expm1(x) - expected) <= Self.tolerance * abs(expected), "\(x)")
        }
    }
}
