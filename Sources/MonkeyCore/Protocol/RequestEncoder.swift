/// Writes requests in the protocol's syntax, the inverse of `Tokenizer`
/// and `RequestParser`: the verb, positional words, then `key=value`
/// settings, each token quoted only when it has to be.
public enum RequestEncoder {
    /// The line (without its LF) of a validated request:
    /// `RequestParser.parse(line(for: request)) == request`.
    public static func line(for request: Request) -> String {
        switch request {
        case .ping, .hello, .help, .quit, .metrics:
            return line(request.verb)
        case .start(let name, let change), .set(let name, let change):
            return line(request.verb, words: [name.text], settings: settings(change))
        case .stop(let name), .clear(let name), .delete(let name):
            return line(request.verb, words: [name.text])
        case .status(let name):
            return line(.status, words: name.map { [$0.text] } ?? [])
        case .log(let patterns, let query):
            return line(.log, words: patterns.map(\.description), settings: settings(query))
        case .tail(let patterns, let query):
            return line(.tail, words: patterns.map(\.description), settings: settings(query))
        case .events(let query):
            var settings: [(key: String, value: String)] = []
            if let after = query.after { settings.append(("after", String(after))) }
            if let session = query.session { settings.append(("session", session.description)) }
            return line(.events, settings: settings)
        case .wait(let name, let condition, let timeout):
            var settings = [(key: "for", value: condition.text)]
            if let timeout { settings.append(("timeout", timeout.description)) }
            return line(.wait, words: [name.text], settings: settings)
        case .coverage(let name, let query):
            var settings: [(key: String, value: String)] = []
            if let work = query.work { settings.append(("work", work)) }
            if query.bitmap { settings.append(("format", "bitmap")) }
            return line(.coverage, words: [name.text], settings: settings)
        case .corpora(let query):
            return line(.corpora, settings: query.alphabet.map { [("alphabet", $0.text)] } ?? [])
        }
    }

    /// A line from words and settings as given, for a client that leaves
    /// their validation to the daemon.
    public static func line(_ verb: Verb, words: [String] = [], settings: [(key: String, value: String)] = [])
        -> String
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

    /// A token bare when the tokenizer reads it back unchanged, else quoted.
    /// An `=` forces quotes too: bare, `a=b` would be read as a setting.
    public static func token(_ text: String) -> String {
        guard text.isEmpty || text.utf8.contains(where: Token.needsQuoting) else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            // Requests have no escape for other control characters; they are
            // sent as they are and the daemon refuses them where they are invalid.
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    static func settings(_ query: LogQuery) -> [(key: String, value: String)] {
        var settings: [(key: String, value: String)] = []
        if let last = query.last { settings.append(("last", String(last))) }
        if let after = query.after { settings.append(("after", String(after))) }
        return settings
    }

    /// A change's settings in a fixed order.
    static func settings(_ change: SettingsChange) -> [(key: String, value: String)] {
        var settings: [(key: String, value: String)] = []
        if let target = change.target { settings.append(("target", target)) }
        if let monkeys = change.monkeys { settings.append(("monkeys", String(monkeys))) }
        if let interval = change.interval { settings.append(("interval", interval.description)) }
        if let alphabet = change.alphabet { settings.append(("alphabet", alphabet.text)) }
        if let seed = change.seed { settings.append(("seed", seed.text)) }
        if let corpus = change.corpus { settings.append(("corpus", corpus.name)) }
        if let chunk = change.chunk { settings.append(("chunk", String(chunk))) }
        return settings
    }
}
