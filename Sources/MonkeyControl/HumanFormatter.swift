import MonkeyCore

/// Default output: one readable line per record, coloured only when asked
/// to (the caller decides, from the terminal and `NO_COLOR`).
struct HumanFormatter {
    let usesColor: Bool
    /// Set when entries of several sessions are shown: each line starts with its session's name.
    var prefix: SessionPrefix?
    /// What a `lost` record counts: entries of a follower, or events.
    var countsEvents = false

    init(usesColor: Bool, prefix: SessionPrefix? = nil, countsEvents: Bool = false) {
        self.usesColor = usesColor
        self.prefix = prefix
        self.countsEvents = countsEvents
    }

    /// The line (without newline) for one data record of a response.
    func line(for record: Record) -> String {
        switch record.type {
        case "entry": entry(record)
        case "lost": lost(record)
        case "session": session(record)
        case "deleted": "\(sessionName(record))deleted"
        case "event": event(record)
        default: Visible.escaped(ResponseEncoder.encode(record))
        }
    }

    /// `7. qwert`, and for a hit `7. qwert  *hit*`, the marker readable without
    /// colour; with several sessions, after the session's name.
    private func entry(_ record: Record) -> String {
        let number = Visible.escaped(record.value("number") ?? "?")
        let text = Visible.escaped(record.value("text") ?? "")
        let name = sessionName(record)
        guard record.value("hit") == "yes" else { return "\(name)\(number). \(text)" }
        return name + paint("\(number). \(text)  *hit*", .hit)
    }

    /// The session's name padded to the prefix's width and a blank, in its
    /// colour; empty for one session.
    private func sessionName(_ record: Record) -> String {
        guard let prefix else { return "" }
        let name = Visible.escaped(record.value("session") ?? "?")
        let padded = name + String(repeating: " ", count: max(0, prefix.width - name.count)) + " "
        guard usesColor else { return padded }
        return SessionPrefix.colours[SessionPrefix.colourIndex(of: name)] + padded + "\u{1B}[0m"
    }

    /// `#12 2026-11-30T22:37:13.123Z demo hit entry_id=2 number=2 text=ab`:
    /// the id first, for `--after`.
    private func event(_ record: Record) -> String {
        let rest = record.fields.filter { !["id", "time", "kind", "session"].contains($0.key) }
        var line = "#\(Visible.escaped(record.value("id") ?? "?")) \(Visible.escaped(record.value("time") ?? ""))"
        line += " \(Visible.escaped(record.value("session") ?? "")) \(Visible.escaped(record.value("kind") ?? ""))"
        if !rest.isEmpty {
            var bytes: [UInt8] = []
            for field in rest { ResponseEncoder.appendField(field.key, field.value, to: &bytes) }
            line += Visible.escaped(String(decoding: bytes, as: UTF8.self))
        }
        return record.value("kind") == "hit" ? paint(line, .hit) : line
    }

    private func lost(_ record: Record) -> String {
        let count = record.value("count") ?? "some"
        let shown = HumanNumbers.count(text: count)
        if countsEvents {
            // Too old for what the daemon keeps, or skipped for a slow reader.
            let noun = count == "1" ? "event" : "events"
            return paint("... \(shown) \(noun) lost (no longer kept, or reader too slow)", .warning)
        }
        let noun = count == "1" ? "entry" : "entries"
        return paint("... \(shown) \(noun) skipped (follower too slow)", .warning)
    }

    /// `default  running  5 monkeys every 100ms  typed 1,146, 1,146 kept, 0 hits  best "t" of target "to be"`;
    /// a flat-out session's pace is `flat out at 52,301 entries/s`.
    private func session(_ record: Record) -> String {
        func field(_ key: String) -> String { Visible.escaped(record.value(key) ?? "?") }
        func number(_ key: String) -> String { HumanNumbers.count(text: record.value(key) ?? "?") }
        func counted(_ key: String, _ noun: String) -> String {
            "\(number(key)) \(noun)\(record.value(key) == "1" ? "" : "s")"
        }
        let state = record.value("state") ?? "?"
        var pace = "every \(field("interval"))"
        if record.value("interval") == "0ms" {
            // Flat out (interval=0): its pace is its rate.
            pace = "flat out"
            if state == "running", let rate = record.value("rate"), rate != "0" {
                pace += " at \(rate.contains(".") ? Visible.escaped(rate) : HumanNumbers.count(text: rate)) entries/s"
            }
        }
        var parts = [
            field("name"),
            paint(Visible.escaped(state), state == "running" ? .running : .plain),
            "\(counted("monkeys", "monkey")) \(pace)",
            "typed \(number("typed")), \(number("entries")) kept, \(counted("hits", "hit"))",
        ]
        let target = record.value("target") ?? ""
        if let corpus = record.value("corpus") {
            parts.append(Self.coverage(record, corpus: corpus))
        } else if target.isEmpty {
            parts.append("no target")
        } else {
            parts.append("best \(Visible.quoted(record.value("best") ?? "")) of target \(Visible.quoted(target))")
        }
        if let alphabet = record.value("alphabet"), alphabet != Self.defaultAlphabet {
            parts.append("alphabet \(Visible.quoted(alphabet))")
        }
        if let seed = record.value("seed") { parts.append("seed \(Visible.escaped(seed))") }
        if let odds = Self.odds(record) { parts.append(odds) }
        return parts.joined(separator: "  ")
    }

    /// A corpus session's coverage in words: `corpus plays, chunk 9: 1,234 of
    /// 3,800,000 covered (3.2e-04), longest run 12 in hamlet, expected 3.1e-04`.
    static func coverage(_ record: Record, corpus: String) -> String {
        func number(_ key: String) -> String { HumanNumbers.count(text: record.value(key) ?? "?") }
        var text = "corpus \(Visible.escaped(corpus)), chunk \(Visible.escaped(record.value("chunk") ?? "?")): "
        text +=
            "\(number("covered")) of \(number("corpus_chars")) covered (\(Visible.escaped(record.value("coverage") ?? "?")))"
        text += ", \(number("works_complete")) of \(number("works")) works complete"
        if let work = record.value("longest_run_work") {
            text += ", longest run \(number("longest_run")) in \(Visible.escaped(work))"
        }
        if let expected = record.value("expected_coverage") { text += ", expected \(Visible.escaped(expected))" }
        return text
    }

    /// The odds in words: `1 in 17,576 · every ~29 minutes · chance so far 63 %`
    /// (`HumanNumbers`, as `top` writes them),
    /// or `never a hit`; nil without a target.
    static func odds(_ record: Record) -> String? {
        guard let expected = record.value("expected_entries") else { return nil }
        guard let entries = WideNumber(parsing: expected) else { return "never a hit" }
        var parts = ["1 in \(HumanNumbers.entries(entries))"]
        if let seconds = record.value("expected_seconds").flatMap(WideNumber.init(parsing:)) {
            parts.append("every ~\(HumanNumbers.duration(seconds, .words))")
        }
        if let chance = record.value("chance").flatMap(WideNumber.init(parsing:)) {
            parts.append("chance so far \(HumanNumbers.percent(chance))")
        }
        return parts.joined(separator: " · ")
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

/// How lines of several sessions start: the name, padded to one width.
struct SessionPrefix: Sendable {
    let width: Int

    static let colours = ["\u{1B}[36m", "\u{1B}[35m", "\u{1B}[34m", "\u{1B}[33m", "\u{1B}[32m", "\u{1B}[31m"]

    /// The same colour for the same name in every run (FNV-1a of its bytes).
    static func colourIndex(of name: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % UInt32(colours.count))
    }
}
