import MonkeyCore

/// `--json` output: one JSON object per line. Records keep the protocol's
/// field names, with `"type"` first; counts are numbers, `hit` is a Boolean,
/// everything else a string.
enum JSONLines {
    /// Fields that are counts or ids in the protocol, written as JSON numbers.
    static let numericFields: Set<String> = [
        "id", "number", "monkeys", "typed", "entries", "hits", "count", "seed", "entry_id",
        // Corpus sessions: STATUS, COVERAGE, CORPORA and their events.
        "chunk", "works", "corpus_chars", "covered", "works_complete", "windows", "longest_run", "chars", "offset",
        "length", "new", "percent", "characters", "bytes",
    ]
    /// The odds of STATUS (see `Figures`): JSON numbers where a double holds
    /// them, strings otherwise (`never`, and exponents beyond ±300).
    static let oddsFields: Set<String> = [
        "p_hit", "expected_entries", "expected_seconds", "chance", "coverage", "expected_coverage",
    ]

    static func object(_ record: Record) -> String {
        var members = [member("type", string(record.type))]
        for field in record.fields {
            members.append(member(field.key, value(field.key, field.value)))
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The object for a command whose whole answer is the status line.
    static func success(_ message: String?, extra: [(key: String, value: String)] = []) -> String {
        var members = [member("ok", "true"), member("message", string(message ?? ""))]
        for field in extra {
            members.append(member(field.key, string(field.value)))
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    private static func member(_ key: String, _ json: String) -> String {
        string(key) + ":" + json
    }

    private static func value(_ key: String, _ text: String) -> String {
        if numericFields.contains(key), isJSONInteger(text) { return text }
        if key == "rate", isJSONDecimal(text) { return text }
        if oddsFields.contains(key) { return OddsReport.number(text, WideNumber(parsing: text)) }
        if key == "hit" {
            switch text {
            case "yes": return "true"
            case "no": return "false"
            default: break
            }
        }
        return string(text)
    }

    /// `0` or digits without a leading zero: what JSON accepts as a number.
    /// Anything else stays a string rather than becoming invalid JSON.
    private static func isJSONInteger(_ text: String) -> Bool {
        let digits = text.utf8
        guard let first = digits.first, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return first != 0x30 || digits.count == 1
    }

    /// A whole number, or one with a fraction (`12.5`), as JSON writes it.
    private static func isJSONDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, isJSONInteger(String(whole)) else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// A JSON string literal: quotes and backslashes escaped, control
    /// characters as `\u00XX`.
    static func string(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0..<0x20:
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
