import MonkeyCore

/// Why a `wait` may never end with the session as it is now, said on
/// stderr before waiting, as `start` warns of a target that can never be
/// typed. The wait still goes ahead: another client may start the session
/// or change its settings meanwhile.
enum WaitWarning {
    /// The reason, from the session's STATUS record and the protocol's
    /// condition (`hit`, `stopped`, `best=N`, `coverage=P`); nil when the condition can
    /// come true.
    static func reason(condition: String, session record: Record) -> String? {
        let name = Visible.escaped(record.value("name") ?? "?")
        let isStopped = record.value("state") == "stopped"
        let stoppedReason = "session \(name) is stopped, so it types nothing until it is started"
        switch condition {
        case "hit":
            // A session without the field (a kind of session this client
            // does not know) is given the benefit of the doubt.
            guard let target = record.value("target") else { return nil }
            if target.isEmpty { return "session \(name) has no target, so it never hits" }
            if let impossibility = impossibility(of: target, record) {
                return "session \(name) can never type its target: \(Visible.escaped(impossibility.description))"
            }
            return isStopped ? stoppedReason : nil
        case _ where condition.hasPrefix("best="):
            guard let length = Int(condition.dropFirst("best=".count)), let target = record.value("target") else {
                return nil
            }
            if (record.value("best") ?? "").unicodeScalars.count >= length { return nil }
            if target.isEmpty { return "session \(name) has no target, so its best never grows" }
            let targetLength = target.unicodeScalars.count
            if length > targetLength {
                let noun = targetLength == 1 ? "character" : "characters"
                return "session \(name)'s target has \(targetLength) \(noun), so best \(length) can never be reached"
            }
            let prefix = String(String.UnicodeScalarView(target.unicodeScalars.prefix(length)))
            if let impossibility = impossibility(of: prefix, record) {
                let first = length == 1 ? "first character" : "first \(length) characters"
                return "session \(name) can never type the \(first) of its target: "
                    + Visible.escaped(impossibility.description)
            }
            return isStopped ? stoppedReason : nil
        case _ where condition.hasPrefix("coverage="):
            guard let percent = Int(condition.dropFirst("coverage=".count)) else { return nil }
            guard record.value("corpus") != nil else {
                return "session \(name) is not a corpus session, so it covers nothing"
            }
            let covered = Int(record.value("covered") ?? "") ?? 0
            let characters = Int(record.value("corpus_chars") ?? "") ?? 0
            if covered * 100 >= percent * characters { return nil }
            if let monkeys = record.value("monkeys").flatMap({ Int($0) }),
                let chunk = record.value("chunk").flatMap({ Int($0) }), monkeys < chunk
            {
                return "session \(name)'s entries have \(monkeys) characters, fewer than its chunk of \(chunk), "
                    + "so they cover nothing"
            }
            return isStopped ? stoppedReason : nil
        default:
            return nil
        }
    }

    /// Why `text` can never be typed with the record's monkeys and alphabet.
    private static func impossibility(of text: String, _ record: Record) -> Impossibility? {
        guard let monkeys = record.value("monkeys").flatMap({ Int($0) }),
            let alphabetText = record.value("alphabet"),
            let alphabet = try? Alphabet(validating: alphabetText, limit: Int.max)
        else { return nil }
        return Impossibility(target: text, monkeys: monkeys, alphabet: alphabet)
    }
}
