extension WideNumber {
    /// Values within this relative distance of a whole number below
    /// `largestWholeNumber` are written as that whole number. The odds are
    /// computed with a relative error near 1e-13, so a result that is a
    /// whole number in exact arithmetic (1/p = 17576) lands this close.
    public static let wholeNumberTolerance = 1e-9
    /// Whole numbers from this on are written in scientific notation.
    public static let largestWholeNumber: UInt64 = 1_000_000

    /// How the odds are written in the protocol, one rule for every figure:
    ///
    /// - zero is `0`;
    /// - a value within a relative 10^-9 of a whole number below 1,000,000
    ///   is that whole number in decimal digits (`1`, `17576`);
    /// - any other value has 4 significant digits in C's `%.3e` style: one
    ///   digit, a point, three digits, `e`, the exponent's sign and at least
    ///   two digits (`5.690e-05`, `1.758e+03`, `1.213e-1449`). The exponent
    ///   has no bound.
    ///
    /// The printed value is within a relative 5e-4 of the number (rounding
    /// to 4 digits) plus about 1e-13 (the decimal conversion).
    public var formatted: String {
        if isZero { return "0" }
        if let whole = nearbyWholeNumber { return String(whole) }
        return scientific
    }

    /// The whole number this is within `wholeNumberTolerance` of, if it is
    /// below `largestWholeNumber`.
    public var nearbyWholeNumber: UInt64? {
        guard !isZero, exponent < 20 else { return nil }
        let value = doubleValue
        let nearest = Elementary.nearestWhole(value)
        guard nearest >= 1, nearest < Double(Self.largestWholeNumber),
            abs(value - nearest) <= nearest * Self.wholeNumberTolerance
        else { return nil }
        return UInt64(nearest)
    }

    /// 4 significant digits as `d.ddde±XX`; `0.000e+00` for zero.
    public var scientific: String {
        let (digits, decimalExponent) = decimalDigits(significantDigits: 4)
        var exponentDigits = 2
        var bound = 100
        while decimalExponent.magnitude >= bound && exponentDigits < 19 {
            exponentDigits += 1
            bound *= 10
        }
        // Written byte by byte: most results fit a small string, without allocation.
        return String(unsafeUninitializedCapacity: 7 + exponentDigits) { text in
            var remaining = digits
            for position in [4, 3, 2, 0] {
                text[position] = 0x30 + UInt8(remaining % 10)
                remaining /= 10
            }
            text[1] = UInt8(ascii: ".")
            text[5] = UInt8(ascii: "e")
            text[6] = decimalExponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            var magnitude = decimalExponent.magnitude
            for position in stride(from: 6 + exponentDigits, through: 7, by: -1) {
                text[position] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return 7 + exponentDigits
        }
    }

    /// The value rounded to `count` significant decimal digits (1 to 15),
    /// for a binary exponent within ±2^50, as those digits (a number from 10^(count-1) to 10^count − 1) and the
    /// decimal exponent of the first one: 17576 with 4 digits is (1758, 4).
    public func decimalDigits(significantDigits count: Int) -> (digits: UInt64, exponent: Int) {
        precondition((1...15).contains(count), "1 to 15 significant digits")
        guard !isZero else { return (0, 0) }
        // Far beyond any odds (those stay within 2^20); the split below needs it.
        precondition(exponent.magnitude < 1 << 50, "a binary exponent within ±2^50")
        // log10(value) = log10(significand) + exponent·log10(2), the second
        // product split so that its integer part is exact at any exponent.
        let binary = Double(exponent)
        let wholePart = binary * Self.log10TwoHigh
        var decimalExponent = Int(Elementary.floor(wholePart))
        let fraction =
            (wholePart - Double(decimalExponent)) + binary * Self.log10TwoLow
            + Elementary.log(significand) / Elementary.ln10
        // 10^fraction is the mantissa; fraction is in [0, 1.31) give or take the
        // low part, so the mantissa may need one step either way.
        var mantissa = Elementary.exp(fraction * Elementary.ln10)
        while mantissa >= 10 {
            mantissa /= 10
            decimalExponent += 1
        }
        while mantissa < 1 {
            mantissa *= 10
            decimalExponent -= 1
        }
        var scale = 1.0
        for _ in 1..<count { scale *= 10 }
        var digits = Elementary.nearestWhole(mantissa * scale)
        // 9.9996 rounds up to 10.00: one more decimal place.
        if digits >= scale * 10 {
            digits = scale
            decimalExponent += 1
        }
        return (UInt64(digits), decimalExponent)
    }

    /// log10(2) = log10TwoHigh + log10TwoLow, the first with 29 significant
    /// bits so that its product with any exponent below 2^24 is exact.
    private static let log10TwoHigh = 0x1.3441_35p-2
    private static let log10TwoLow = 5.801_722_962_879_576e-10
}
