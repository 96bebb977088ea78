import MonkeyCore

/// How every view for people (`status`, `top`, `odds`, `tail`'s and
/// `events`' counts) writes counts and large numbers: one rule, so that
/// the same figure reads the same wherever it is shown. Ids and entry
/// numbers are names, not amounts, and are written as the daemon sends
/// them. JSON keeps the protocol's figures.
enum HumanNumbers {
    /// A count in groups of three digits: `17,576`.
    static func count(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var text = ""
        text.reserveCapacity(digits.count + digits.count / 3)
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// A count as the protocol writes it (`1146`), grouped (`1,146`); any
    /// other text as it came, made visible.
    static func count(text: String) -> String {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt64(text) else {
            return Visible.escaped(text)
        }
        return count(value)
    }

    /// Where scientific notation takes over from grouped digits.
    static let largestGroupedExponent = 12

    /// A mean number of entries (at least 1): whole numbers below 10^12 in
    /// grouped digits (`17,576`), others from 1,000 on rounded to whole
    /// ones, below that 4 significant digits (`13.25`), and from 10^12 on
    /// in scientific notation (`8.3e24`).
    static func entries(_ value: WideNumber) -> String {
        let (digits, decimalExponent) = value.decimalDigits(significantDigits: 4)
        guard decimalExponent < largestGroupedExponent else { return scientific(value) }
        let number = value.doubleValue
        let nearest = number.rounded()
        if decimalExponent >= 3 || abs(number - nearest) <= nearest * WideNumber.wholeNumberTolerance {
            return count(UInt64(nearest))
        }
        // 1 ≤ value < 1000: the 4 digits with the point after the first 1 + decimalExponent.
        var scale: UInt64 = 1
        for _ in 0..<(3 - max(decimalExponent, 0)) { scale *= 10 }
        var fraction = String(digits % scale)
        while fraction.count < String(scale).count - 1 { fraction = "0" + fraction }
        return "\(digits / scale).\(fraction)"
    }

    /// Scientific notation for people: `significantDigits` digits (1 to
    /// 15), `e` and the exponent, without a plus sign or leading zeros:
    /// `2.6e16`, `5.7e-5`, `8e1440`. The exponent has no bound.
    static func scientific(_ value: WideNumber, significantDigits: Int = 2) -> String {
        let (digits, exponent) = value.decimalDigits(significantDigits: significantDigits)
        var mantissa = String(digits)
        if mantissa.count > 1 { mantissa.insert(".", at: mantissa.index(after: mantissa.startIndex)) }
        return "\(mantissa)e\(exponent)"
    }

    /// The units of a wait: words (`status`, `odds`) or their short forms
    /// (`top`'s narrow column). The number is the same in both.
    enum Units: Sendable {
        case words, short

        fileprivate func name(_ unit: Int, plural: Bool) -> String {
            switch self {
            case .words:
                let word = ["millisecond", "second", "minute", "hour", "day", "year"][unit]
                return plural ? word + "s" : word
            case .short:
                return ["ms", "s", "min", "h", "d", "y"][unit]
            }
        }
    }

    /// Years from this power of ten on are written in scientific notation.
    static let largestGroupedYearsExponent = 5

    /// A wait in the largest unit that keeps it readable: `50 ms`,
    /// `29 minutes`, `1.5 h`, `2.4 days`, `12,345 years`, and from 10^5
    /// years on in scientific notation with `significantDigits` digits
    /// (`2.6e16 years`); a year is 365.25 days.
    static func duration(_ seconds: WideNumber, _ units: Units, significantDigits: Int = 2) -> String {
        let scale: [(seconds: Double, below: Double)] = [
            (0.001, 1), (1, 120), (60, 7200), (3600, 172_800), (86400, 2 * secondsPerYear),
        ]
        let value = seconds.doubleValue
        for (index, unit) in scale.enumerated() where value < unit.below {
            return amount(value / unit.seconds, unit: index, units)
        }
        let years = seconds / WideNumber(secondsPerYear)
        guard years.decimalDigits(significantDigits: 2).exponent >= largestGroupedYearsExponent else {
            return amount(years.doubleValue, unit: 5, units)
        }
        return scientific(years, significantDigits: significantDigits) + " " + units.name(5, plural: true)
    }

    /// A Julian year, as astronomers count them.
    static let secondsPerYear = 365.25 * 86400

    /// `29 minutes`, `1 minute`, `1.5 h`: whole (grouped) from 10 on, else one decimal.
    private static func amount(_ value: Double, unit: Int, _ units: Units) -> String {
        let text: String
        if value >= 9.95 {
            text = count(UInt64(value.rounded()))
        } else {
            let tenths = Int((value * 10).rounded())
            text = tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
        }
        return "\(text) \(units.name(unit, plural: text != "1"))"
    }

    /// A probability in percent: `63 %`, `4.5 %`, `0.31 %`, `<0.01 %`;
    /// `0 %` only for none at all, `100 %` only for a certainty (99.5 %
    /// stays below it).
    static func percent(_ fraction: WideNumber) -> String {
        if fraction.isZero { return "0 %" }
        let value = (fraction * WideNumber(100)).doubleValue
        if value < 0.01 { return "<0.01 %" }
        if value >= 99.5 && value < 100 { return "99.5 %" }
        if value >= 10 { return "\(Int(value.rounded())) %" }
        let text = String(value)
        let digits = value >= 1 ? 3 : 4
        return String(text.prefix(digits)) + " %"
    }
}
