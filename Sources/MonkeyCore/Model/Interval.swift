/// A tick interval, kept in nanoseconds, written as `250ms`, `1.5s`, `2min`, `1h`.
public struct Interval: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let nanoseconds: UInt64

    public static let millisecond = Interval(nanoseconds: 1_000_000)
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

    /// Parses a duration; a bare number is milliseconds. Returns nil if it is
    /// not a duration or is not a whole number of nanoseconds.
    public init?(parsing text: String) {
        var digits = Substring(text)
        var scale: UInt64 = 1_000_000
        if let unit = Interval.unitsBySuffixLength.first(where: { text.hasSuffix($0.suffix) }) {
            digits = text.dropLast(unit.suffix.count)
            scale = unit.nanoseconds
        }
        guard let value = Interval.scaled(digits, by: scale) else { return nil }
        nanoseconds = value
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
