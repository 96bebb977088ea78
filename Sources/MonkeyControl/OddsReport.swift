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
        return
            "1 in \(HumanNumbers.entries(entries)) entries; about \(HumanNumbers.duration(seconds, .words)) at \(interval)"
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
}
