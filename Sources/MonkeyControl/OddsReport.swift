import MonkeyCore

/// What `monkeyctl odds` prints: one line for people, or one JSON object
/// with the field names of STATUS.
enum OddsReport {
    /// `1 in 17,576 entries; about 29 minutes at 100ms`, or `never: ` and why.
    static func human(_ question: OddsQuestion, _ odds: Odds) -> String {
        if let impossibility = odds.impossibility {
            return "never: " + Visible.escaped(impossibility.description)
        }
        let interval = question.interval
        if odds.complement.isZero {
            return "every entry is a hit; one every \(interval)"
        }
        guard let entries = odds.expectedEntries else { return "never" }
        let seconds = entries * WideNumber(Double(interval.nanoseconds) / 1e9)
        return "1 in \(count(entries)) entries; about \(duration(seconds)) at \(interval)"
    }

    /// One JSON object: the question, then `p_hit`, `expected_entries` and
    /// `expected_seconds` as STATUS writes them, as JSON numbers where a
    /// double holds them, else as strings (`never`, `1.215e+2462`); and
    /// `impossibility` with the reason when p = 0.
    static func json(_ question: OddsQuestion, _ odds: Odds) -> String {
        let figures = odds.figures(interval: question.interval, typed: 0)
        var members = [
            ("target", JSONLines.string(question.target)), ("monkeys", String(question.monkeys)),
            ("alphabet", JSONLines.string(question.alphabet.text)),
            ("interval", JSONLines.string(question.interval.description)),
            ("p_hit", number(figures.pHit, figures.numbers.pHit)),
            ("expected_entries", number(figures.expectedEntries, figures.numbers.expectedEntries)),
            ("expected_seconds", number(figures.expectedSeconds, figures.numbers.expectedSeconds)),
        ]
        if let impossibility = odds.impossibility {
            members.append(("impossibility", JSONLines.string(impossibility.description)))
        }
        return "{" + members.map { JSONLines.string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// Decimal exponents up to this size are JSON numbers: every parser
    /// reads them as normal doubles.
    static let largestJSONExponent = 300

    /// The protocol's text as a JSON number when a double holds it, else as a string.
    static func number(_ text: String, _ value: WideNumber?) -> String {
        guard let value else { return JSONLines.string(text) }
        if value.isZero { return text }
        let exponent = value.decimalDigits(significantDigits: 4).exponent
        return abs(exponent) <= largestJSONExponent ? text : JSONLines.string(text)
    }

    /// A number of entries (at least 1): whole numbers below 10^12 in
    /// grouped digits (`17,576`), others from 1,000 on rounded to whole
    /// ones, below that 4 significant digits (`13.25`), and from 10^12 on
    /// 4 significant digits in scientific notation (`1.213e+1449`).
    static func count(_ value: WideNumber) -> String {
        let (digits, decimalExponent) = value.decimalDigits(significantDigits: 4)
        guard decimalExponent < 12 else { return value.scientific }
        let number = value.doubleValue
        let nearest = number.rounded()
        if decimalExponent >= 3 || abs(number - nearest) <= nearest * WideNumber.wholeNumberTolerance {
            return grouped(UInt64(nearest))
        }
        // 1 ≤ value < 1000: the 4 digits with the point after the first 1 + decimalExponent.
        var scale: UInt64 = 1
        for _ in 0..<(3 - max(decimalExponent, 0)) { scale *= 10 }
        var fraction = String(digits % scale)
        while fraction.count < String(scale).count - 1 { fraction = "0" + fraction }
        return "\(digits / scale).\(fraction)"
    }

    /// A wait in the largest unit that keeps it readable: `29 minutes`,
    /// `1.5 hours`, `12,345 years`, `3.8e+1440 years`.
    static func duration(_ seconds: WideNumber) -> String {
        let units: [(name: String, seconds: Double, below: Double)] = [
            ("millisecond", 0.001, 1), ("second", 1, 120), ("minute", 60, 7200), ("hour", 3600, 172_800),
            ("day", 86400, 2 * secondsPerYear),
        ]
        let value = seconds.doubleValue
        for unit in units where value < unit.below {
            return amount(value / unit.seconds, unit.name)
        }
        let years = seconds / WideNumber(secondsPerYear)
        guard years.decimalDigits(significantDigits: 2).exponent >= 9 else {
            return amount(years.doubleValue, "year")
        }
        let (digits, exponent) = years.decimalDigits(significantDigits: 2)
        let sign = exponent < 0 ? "-" : "+"
        let magnitude = String(exponent.magnitude)
        return "\(digits / 10).\(digits % 10)e\(sign)\(magnitude.count < 2 ? "0" : "")\(magnitude) years"
    }

    /// A Julian year, as astronomers count them.
    static let secondsPerYear = 365.25 * 86400

    /// `29 minutes`, `1 minute`, `1.5 hours`: whole from 10 on, else one decimal.
    private static func amount(_ value: Double, _ unit: String) -> String {
        let text: String
        if value >= 9.95 {
            text = grouped(UInt64(value.rounded()))
        } else {
            let tenths = Int((value * 10).rounded())
            text = tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
        }
        return "\(text) \(unit)\(text == "1" ? "" : "s")"
    }

    /// `17,576`.
    static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
