import MonkeyCore

/// Writes a request line in the protocol's syntax: the verb, positional
/// words, then `key=value` settings, each quoted when it has to be.
enum RequestLine {
    /// The line, without its LF.
    static func encode(_ verb: Verb, _ words: [String] = [], _ settings: [(key: String, value: String)] = []) -> String
    {
        var line = verb.rawValue
        for word in words {
            line += " " + token(word)
        }
        for setting in settings {
            line += " \(setting.key)=" + token(setting.value)
        }
        return line
    }

    /// The request that carries out a command, or nil for local commands.
    static func request(for command: Command) -> String? {
        switch command {
        case .start(let session, let settings): encode(.start, [session], settings.pairs)
        case .stop(let session): encode(.stop, [session])
        case .set(let session, let settings): encode(.set, [session], settings.pairs)
        case .clear(let session): encode(.clear, [session])
        case .delete(let session): encode(.delete, [session])
        case .status(let session): encode(.status, session.map { [$0] } ?? [])
        case .log(let session, let last): encode(.log, [session], last.map { [("last", String($0))] } ?? [])
        case .tail(let session, let last, let follow):
            encode(follow ? .tail : .log, [session], [("last", String(last))])
        case .ping: encode(.ping)
        case .hello: encode(.hello)
        case .help, .clientVersion, .odds, .replay: nil
        }
    }

    /// A token bare when the daemon reads it back unchanged, else quoted.
    /// An `=` forces quotes too: bare, `a=b` would be read as a setting.
    static func token(_ text: String) -> String {
        let needsQuotes =
            text.isEmpty || text.utf8.contains { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C || $0 == 0x7F }
        guard needsQuotes else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            // The protocol has no escape for other control characters; they are
            // sent as they are and the daemon refuses them where they are invalid.
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
