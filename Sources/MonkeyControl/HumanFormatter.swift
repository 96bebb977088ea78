import MonkeyCore

/// Default output: one readable line per record, coloured only when asked
/// to (the caller decides, from the terminal and `NO_COLOR`).
struct HumanFormatter {
    let usesColor: Bool

    /// The line (without newline) for one data record of a response.
    func line(for record: Record) -> String {
        switch record.type {
        case "entry": entry(record)
        case "lost": lost(record)
        case "session": session(record)
        default: Visible.escaped(ResponseEncoder.encode(record))
        }
    }

    /// `7. qwert`, and for a hit `7. qwert  *hit*`, the marker readable without colour.
    private func entry(_ record: Record) -> String {
        let number = Visible.escaped(record.value("number") ?? "?")
        let text = Visible.escaped(record.value("text") ?? "")
        guard record.value("hit") == "yes" else { return "\(number). \(text)" }
        return paint("\(number). \(text)  *hit*", .hit)
    }

    private func lost(_ record: Record) -> String {
        let count = record.value("count") ?? "some"
        let noun = count == "1" ? "entry" : "entries"
        return paint("... \(Visible.escaped(count)) \(noun) skipped (follower too slow)", .warning)
    }

    /// `default  running  5 monkeys every 100ms  typed 12, 12 kept, 0 hits  best "t" of target "to be"`
    private func session(_ record: Record) -> String {
        func field(_ key: String) -> String { Visible.escaped(record.value(key) ?? "?") }
        func counted(_ key: String, _ noun: String) -> String {
            "\(field(key)) \(noun)\(record.value(key) == "1" ? "" : "s")"
        }
        let state = record.value("state") ?? "?"
        var parts = [
            field("name"),
            paint(Visible.escaped(state), state == "running" ? .running : .plain),
            "\(counted("monkeys", "monkey")) every \(field("interval"))",
            "typed \(field("typed")), \(field("entries")) kept, \(counted("hits", "hit"))",
        ]
        let target = record.value("target") ?? ""
        if target.isEmpty {
            parts.append("no target")
        } else {
            parts.append("best \(Visible.quoted(record.value("best") ?? "")) of target \(Visible.quoted(target))")
        }
        if let alphabet = record.value("alphabet"), alphabet != Self.defaultAlphabet {
            parts.append("alphabet \(Visible.quoted(alphabet))")
        }
        return parts.joined(separator: "  ")
    }

    /// The daemon's default alphabet, which `status` does not repeat on every line.
    static let defaultAlphabet = SessionSettings.defaults.alphabet.text

    enum Tone {
        case hit, warning, running, plain

        var escape: String {
            switch self {
            case .hit: "\u{1B}[1;32m"
            case .warning: "\u{1B}[33m"
            case .running: "\u{1B}[32m"
            case .plain: ""
            }
        }
    }

    func paint(_ text: String, _ tone: Tone) -> String {
        guard usesColor, tone != .plain else { return text }
        return tone.escape + text + "\u{1B}[0m"
    }

    /// Colour only for a terminal, and never when `NO_COLOR` is set to
    /// anything non-empty (no-color.org) or the terminal is `dumb`.
    static func usesColor(outputIsTerminal: Bool, environment: [String: String]) -> Bool {
        guard outputIsTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}
