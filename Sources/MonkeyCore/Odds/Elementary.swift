/// The few elementary functions the odds need, in pure Swift: the core
/// links no C library. Each is accurate to a few units in the last place
/// over the whole range of Double, far more than the 4 digits printed.
/// The series are written out with constant coefficients because formatting
/// a STATUS line's figures calls them, and a division per term costs more
/// than the rest of the work.
enum Elementary {
    static let ln2 = 0.693_147_180_559_945_3
    static let ln10 = 2.302_585_092_994_046
    /// ln 2 split so that `n * ln2High` is exact for |n| < 2^20 (fdlibm's constants).
    private static let ln2High = 6.931_471_803_691_238_164_9e-01
    private static let ln2Low = 1.908_214_929_270_587_700_02e-10

    /// ln(x) for finite x > 0 (subnormal too).
    static func log(_ x: Double) -> Double {
        var exponent = x.exponent
        var significand = x.significand
        // Centre the significand on 1, so that |s| ≤ 0.172 below.
        if significand > 1.414_213_562_373_095 {
            significand /= 2
            exponent += 1
        }
        // ln(1 + f) = 2·atanh(s), s = f/(2 + f): s + s³/3 + s⁵/5 + …, whose
        // 12th term is below 2^-60 of the first.
        let f = significand - 1
        let s = f / (2 + f)
        let z = s * s
        var sum = 1.0 / 23
        sum = sum * z + 1.0 / 21
        sum = sum * z + 1.0 / 19
        sum = sum * z + 1.0 / 17
        sum = sum * z + 1.0 / 15
        sum = sum * z + 1.0 / 13
        sum = sum * z + 1.0 / 11
        sum = sum * z + 1.0 / 9
        sum = sum * z + 1.0 / 7
        sum = sum * z + 1.0 / 5
        sum = sum * z + 1.0 / 3
        sum = sum * z + 1
        return Double(exponent) * ln2 + 2 * s * sum
    }

    /// ln(1 + x) for any x > -1, accurate also when x is tiny.
    static func log1p(_ x: Double) -> Double {
        guard abs(x) <= 0.5 else { return log(1 + x) }
        // The same series with |s| ≤ 1/3: 20 terms.
        let s = x / (2 + x)
        let z = s * s
        var sum = 0.0
        for odd in stride(from: 39, through: 1, by: -2) {
            sum = sum * z + 1 / Double(odd)
        }
        return 2 * s * sum
    }

    /// ⌊x⌋ for |x| < 2^62. Double's `rounded` calls the C library's floor
    /// and round on machines without SSE4.1, and the core links none.
    static func floor(_ x: Double) -> Double {
        let truncated = Double(Int64(x))
        return truncated > x ? truncated - 1 : truncated
    }

    /// x rounded to a whole number, halves up, for |x| < 2^62.
    static func nearestWhole(_ x: Double) -> Double {
        floor(x + 0.5)
    }

    /// e^x; 0 or +infinity beyond a Double's range.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 710 { return .infinity }
        if x < -746 { return 0 }
        // x = n·ln 2 + r with |r| ≤ ln2/2; the two-part ln 2 keeps r exact enough.
        let n = nearestWhole(x / ln2)
        let r = (x - n * ln2High) - n * ln2Low
        return Double(sign: .plus, exponent: Int(n), significand: 1 + r * exponentialTail(r))
    }

    /// e^x − 1 without cancellation when x is small.
    static func expm1(_ x: Double) -> Double {
        guard abs(x) < 0.35 else { return exp(x) - 1 }
        return x * exponentialTail(x)
    }

    /// (e^x − 1)/x = Σ xⁿ/(n+1)! for |x| ≤ 0.35, where the terms after
    /// these 15 add less than 1e-20.
    private static func exponentialTail(_ x: Double) -> Double {
        var sum = 1.0 / 20_922_789_888_000  // 1/16!
        sum = sum * x + 1.0 / 1_307_674_368_000
        sum = sum * x + 1.0 / 87_178_291_200
        sum = sum * x + 1.0 / 6_227_020_800
        sum = sum * x + 1.0 / 479_001_600
        sum = sum * x + 1.0 / 39_916_800
        sum = sum * x + 1.0 / 3_628_800
        sum = sum * x + 1.0 / 362_880
        sum = sum * x + 1.0 / 40320
        sum = sum * x + 1.0 / 5040
        sum = sum * x + 1.0 / 720
        sum = sum * x + 1.0 / 120
        sum = sum * x + 1.0 / 24
        sum = sum * x + 1.0 / 6
        sum = sum * x + 1.0 / 2
        return sum * x + 1
    }
}
