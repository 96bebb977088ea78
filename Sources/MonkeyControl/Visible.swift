/// Text from outside (the daemon, the command line) made safe to print on a
/// terminal: control characters become escapes, so that a hostile target or
/// entry cannot move the cursor or change colours.
enum Visible {
    static func escaped(_ text: String) -> String {
        // Most text needs nothing (session names never do): no copy.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x09: result += "\\t"
            case 0..<0x20, 0x7F...0x9F: result += "\\x\(hex(scalar.value))"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Escaped and double-quoted.
    static func quoted(_ text: String) -> String {
        "\"\(escaped(text))\""
    }

    /// Escaped and cut at `limit` characters (marked "…"), so that a long
    /// line from a confused peer makes a short message.
    static func shortened(_ text: String, limit: Int) -> String {
        let shown = escaped(text)
        guard shown.count > limit else { return shown }
        return shown.prefix(limit) + "…"
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }
}
