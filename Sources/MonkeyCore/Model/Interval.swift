/// A tick interval, kept in nanoseconds, written as `250ms`, `1.5s`, `2min`, `1h`
/// (or a bare whole number of milliseconds, `500`).
public struct Interval: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let nanoseconds: UInt64

    public static let millisecond = Interval(nanoseconds: 1_000_000)
    /// A session of interval 0 types flat out: entries back to back.
    public static let flatOut = Interval(nanoseconds: 0)
    public static let defaultTick = Interval(nanoseconds: 100_000_000)
    public static let longestTick = Interval(nanoseconds: 86_400_000_000_000)

    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    public static func < (lhs: Interval, rhs: Interval) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    private static let units: [(suffix: String, nanoseconds: UInt64)] = [
        ("h", 3_600_000_000_000), ("min", 60_000_000_000), ("s", 1_000_000_000),
        ("ms", 1_000_000), ("us", 1_000), ("ns", 1),
    ]

    /// The units, longest suffixes first, so that "ms" is not read as "s".
    private static let unitsBySuffixLength = units.sorted { $0.suffix.count > $1.suffix.count }

    /// Why a text is not a duration.
    public enum ParseError: Error, Sendable, Equatable {
        /// Not a decimal number with a unit (or a bare whole number), or not
        /// a whole number of nanoseconds, or too long for 64 bits.
        case notADuration
        /// A number with a fraction and no unit, such as `1.5`: a bare
        /// number is milliseconds, but only a whole one, since `1.5` reads
        /// as well as seconds. It would be a duration with a unit.
        case bareFraction(String)
        /// A duration, but outside the range asked for.
        case outOfRange

        /// What a message refusing the text ends with, for a person: the
        /// spellings that were meant (`: ... write 1.5s or 1.5ms`), or
        /// nothing.
        public var hint: String {
            switch self {
            case .notADuration, .outOfRange: ""
            case .bareFraction(let text):
                ": a number without a unit is whole milliseconds; write \(text)s or \(text)ms"
            }
        }
    }

    /// Parses a duration; a bare whole number is milliseconds. Returns nil
    /// for anything `parse` refuses.
    public init?(parsing text: String) {
        guard let interval = try? Interval.parse(text) else { return nil }
        self = interval
    }

    /// Parses a duration: a decimal number with a unit (`250ms`, `1.5s`),
    /// or a bare whole number of milliseconds (`500`). A bare number with
    /// a fraction is refused with its own error, which says what to write.
    public static func parse(_ text: String) throws(ParseError) -> Interval {
        guard let unit = unitsBySuffixLength.first(where: { text.hasSuffix($0.suffix) }) else {
            let digits = Substring(text)
            guard let value = scaled(digits, by: millisecond.nanoseconds) else { throw .notADuration }
            guard !digits.contains(".") else { throw .bareFraction(text) }
            return Interval(nanoseconds: value)
        }
        guard let value = scaled(text.dropLast(unit.suffix.count), by: unit.nanoseconds) else {
            throw .notADuration
        }
        return Interval(nanoseconds: value)
    }

    /// Parses a duration that must lie within `range`.
    public static func parse(_ text: String, in range: ClosedRange<Interval>) throws(ParseError) -> Interval {
        let interval = try parse(text)
        guard range.contains(interval) else { throw .outOfRange }
        return interval
    }

    private static func scaled(_ text: Substring, by scale: UInt64) -> UInt64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.utf8.allSatisfy(isDigit) else { return nil }
        guard let wholeValue = UInt64(whole) else { return nil }
        var (total, overflow) = wholeValue.multipliedReportingOverflow(by: scale)
        if overflow { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.utf8.allSatisfy(isDigit) else { return nil }
            var numerator = UInt64(fraction) ?? 0
            var denominator: UInt64 = 1
            for _ in 0..<fraction.count { denominator *= 10 }
            (numerator, overflow) = numerator.multipliedReportingOverflow(by: scale)
            if overflow || numerator % denominator != 0 { return nil }
            (total, overflow) = total.addingReportingOverflow(numerator / denominator)
            if overflow { return nil }
        }
        return total
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// The shortest exact spelling, in the largest unit that divides it
    /// (with up to three decimals).
    public var description: String {
        if nanoseconds == 0 { return "0ms" }
        for unit in Interval.units {
            let milli = unit.nanoseconds / 1000
            if nanoseconds % unit.nanoseconds == 0 {
                return "\(nanoseconds / unit.nanoseconds)\(unit.suffix)"
            }
            if nanoseconds >= unit.nanoseconds, milli > 0, nanoseconds % milli == 0 {
                let thousandths = nanoseconds / milli
                var fraction = String(thousandths % 1000)
                while fraction.count < 3 { fraction = "0" + fraction }
                while fraction.hasSuffix("0") { fraction.removeLast() }
                return "\(thousandths / 1000).\(fraction)\(unit.suffix)"
            }
        }
        return "\(nanoseconds)ns"
    }
}
