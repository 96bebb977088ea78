/// A non-negative number with a Double's precision and an exponent as wide
/// as an `Int`: `significand × 2^exponent`, the significand in [1, 2), or
/// zero. The odds need it because a probability such as 256^-1024 (about
/// 1e-2466) or a wait of 1e+1449 entries is far outside a Double's range.
///
/// Arithmetic rounds like Double arithmetic: each operation adds a relative
/// error of at most one unit in the last place (2^-52).
public struct WideNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// In [1, 2), or 0 for zero.
    public let significand: Double
    /// The power of two; 0 for zero.
    public let exponent: Int

    public static let zero = WideNumber(significand: 0, exponent: 0)
    public static let one = WideNumber(significand: 1, exponent: 0)

    /// `significand × 2^exponent`, normalised; the significand must be
    /// finite and not negative.
    public init(significand: Double, exponent: Int) {
        precondition(significand >= 0 && significand.isFinite, "a WideNumber is finite and not negative")
        if significand == 0 {
            self.significand = 0
            self.exponent = 0
        } else {
            self.significand = significand.significand
            self.exponent = exponent + significand.exponent
        }
    }

    /// The value of a finite, non-negative Double.
    public init(_ value: Double) {
        self.init(significand: value, exponent: 0)
    }

    public var isZero: Bool { significand == 0 }

    /// The nearest Double: 0 below its range, +infinity above it.
    public var doubleValue: Double {
        Double(sign: .plus, exponent: exponent, significand: significand)
    }

    /// The natural logarithm, −infinity for zero: finite for every other value.
    public var naturalLogarithm: Double {
        guard !isZero else { return -.infinity }
        return Elementary.log(significand) + Double(exponent) * Elementary.ln2
    }

    public static func * (lhs: WideNumber, rhs: WideNumber) -> WideNumber {
        WideNumber(significand: lhs.significand * rhs.significand, exponent: lhs.exponent + rhs.exponent)
    }

    /// Division by zero is a programming error.
    public static func / (lhs: WideNumber, rhs: WideNumber) -> WideNumber {
        precondition(!rhs.isZero, "division by zero")
        return WideNumber(significand: lhs.significand / rhs.significand, exponent: lhs.exponent - rhs.exponent)
    }

    public static func + (lhs: WideNumber, rhs: WideNumber) -> WideNumber {
        let (large, small) = lhs >= rhs ? (lhs, rhs) : (rhs, lhs)
        guard !small.isZero else { return large }
        let gap = large.exponent - small.exponent
        // Beyond 2^-60 the smaller one does not change a Double's rounding.
        guard gap <= 60 else { return large }
        let aligned = Double(sign: .plus, exponent: -gap, significand: small.significand)
        return WideNumber(significand: large.significand + aligned, exponent: large.exponent)
    }

    /// 1 / self; self must not be zero.
    public var reciprocal: WideNumber { .one / self }

    /// The value times 2^power, exactly.
    public func scaled(byPowerOfTwo power: Int) -> WideNumber {
        isZero ? self : WideNumber(significand: significand, exponent: exponent + power)
    }

    /// self^power for power ≥ 0, by repeated squaring (relative error below
    /// 2·log2(power) units in the last place).
    public func power(_ power: Int) -> WideNumber {
        precondition(power >= 0, "negative power")
        var result = WideNumber.one
        var base = self
        var remaining = power
        while remaining > 0 {
            if remaining & 1 == 1 { result = result * base }
            remaining >>= 1
            if remaining > 0 { base = base * base }
        }
        return result
    }

    public static func < (lhs: WideNumber, rhs: WideNumber) -> Bool {
        if lhs.isZero || rhs.isZero { return lhs.significand < rhs.significand }
        if lhs.exponent != rhs.exponent { return lhs.exponent < rhs.exponent }
        return lhs.significand < rhs.significand
    }

    /// The protocol's spelling (see `formatted`).
    public var description: String { formatted }
}
