import MonkeyCore

/// Turns `monkeyctl`'s arguments into an `Invocation`, in two steps: split
/// the words into options and positionals (options may come anywhere, as
/// `--opt value`, `--opt=value`, `-n 5`, `-n5` or `-fn 5`), then check them
/// against the subcommand. Values the daemon validates are passed on as
/// text, once `RequestCheck` has found that a daemon could accept them.
public enum CommandLineParser {
    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let split = Split(arguments)
        let subcommandWord = split.positionals.first
        let subcommand = subcommandWord.flatMap(Subcommand.init(rawValue:))
        if let subcommandWord, subcommand == nil {
            throw UsageError("unknown subcommand '\(Visible.escaped(subcommandWord))'")
        }
        // Help wins over every other mistake, so that `start --bad --help` still helps.
        if split.has(.help) { return Invocation(command: .help(subcommand)) }
        if let error = split.firstError { throw error }
        if split.has(.version) { return Invocation(command: .clientVersion) }
        guard let subcommand else { throw UsageError("no subcommand given") }
        try checkOptions(split, for: subcommand)
        let positionals = Array(split.positionals.dropFirst())
        if positionals.count > subcommand.maximumPositionals {
            let extra = positionals[subcommand.maximumPositionals]
            throw UsageError("too many arguments for '\(subcommand.rawValue)': '\(Visible.escaped(extra))'")
        }
        if split.value(.socket)?.isEmpty == true { throw UsageError("--socket needs a path, not an empty string") }
        let command = try command(subcommand, positionals, split)
        try RequestCheck.check(command)
        let hosts = split.values(.host)
        try checkHosts(hosts, for: command, subcommand: subcommand)
        return Invocation(command: command, socketPath: split.value(.socket), hosts: hosts, isJSON: split.has(.json))
    }

    /// `-H`: only for what talks to a daemon, several only for `status`,
    /// each a destination ssh takes as one (`RemoteHost.problem`).
    static func checkHosts(_ hosts: [String], for command: Command, subcommand: Subcommand) throws(UsageError) {
        guard !hosts.isEmpty else { return }
        guard command.reachesDaemon else {
            throw UsageError("'\(subcommand.rawValue)' talks to no daemon: -H is not for it")
        }
        if hosts.count > 1 && !command.takesSeveralHosts {
            throw UsageError(
                "'\(subcommand.rawValue)' asks one daemon: -H may be given several times only to 'status' and 'coverage'"
            )
        }
        for host in hosts {
            if let problem = RemoteHost.problem(with: host) {
                throw UsageError("-H needs [USER@]HOST, and '\(Visible.escaped(host))' \(problem)")
            }
        }
    }

    private static func command(_ subcommand: Subcommand, _ positionals: [String], _ split: Split)
        throws(UsageError) -> Command
    {
        let argument = positionals.first
        let session = argument ?? Command.defaultSession
        switch subcommand {
        case .start: return .start(session: session, settings: settings(split))
        case .set:
            let settings = settings(split)
            if settings.isEmpty {
                throw UsageError(
                    "'set' needs at least one of --target, --corpus, --chunk, --monkeys, --interval, --alphabet, --seed"
                )
            }
            return .set(session: session, settings: settings)
        case .stop: return .stop(session: session)
        case .clear: return .clear(session: session)
        case .delete: return .delete(session: session)
        case .status: return .status(session: argument)
        case .log: return .log(sessions: try sessions(positionals, split), last: try count(split))
        case .tail:
            return .tail(
                sessions: try sessions(positionals, split), last: try count(split) ?? Command.defaultTailCount,
                follow: split.has(.follow))
        case .events:
            if let after = split.value(.after), after.isEmpty || !after.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                throw UsageError("--after needs an event id (a whole number), not '\(Visible.escaped(after))'")
            }
            return .events(after: split.value(.after), session: split.value(.session), follow: split.has(.follow))
        case .wait:
            let conditions = [
                split.has(.hit) ? "hit" : nil, split.has(.stopped) ? "stopped" : nil,
                split.value(.best).map { "best=\($0)" }, split.value(.coverage).map { "coverage=\($0)" },
            ].compactMap { $0 }
            guard conditions.count == 1 else {
                throw UsageError("'wait' needs exactly one of --hit, --stopped, --best N and --coverage P")
            }
            return .wait(session: session, condition: conditions[0], timeout: split.value(.timeout))
        case .coverage: return .coverage(session: session, work: split.value(.work))
        case .corpora: return .corpora(alphabet: split.value(.alphabet))
        case .ping: return .ping
        case .metrics: return .metrics
        case .bridge: return .bridge
        case .hello: return .hello(showsClientVersion: false)
        case .version: return .hello(showsClientVersion: true)
        case .odds where split.value(.corpus) != nil:
            guard split.value(.target) == nil else {
                throw UsageError("'odds' takes --target or --corpus, not both")
            }
            return .corpusOdds(
                try LocalQuestion.corpusOdds(
                    corpus: split.value(.corpus), chunk: split.value(.chunk), alphabet: split.value(.alphabet),
                    monkeys: split.value(.monkeys), interval: split.value(.interval),
                    coverage: split.value(.coverage)))
        case .odds:
            if split.value(.chunk) != nil || split.value(.coverage) != nil {
                throw UsageError("--chunk and --coverage are for 'odds --corpus'")
            }
            return .odds(
                try LocalQuestion.odds(
                    target: split.value(.target), monkeys: split.value(.monkeys), alphabet: split.value(.alphabet),
                    interval: split.value(.interval)))
        case .replay:
            return .replay(
                try LocalQuestion.replay(
                    seed: split.value(.seed), id: split.value(.id), monkeys: split.value(.monkeys),
                    alphabet: split.value(.alphabet)))
        case .top:
            if split.has(.json) {
                throw UsageError("'top' is for people; 'monkeyctl status --json' gives the same figures as JSON")
            }
            return .top(once: split.has(.once), delay: try delay(split))
        case .help:
            guard let argument else { return .help(nil) }
            guard let topic = Subcommand(rawValue: argument) else {
                throw UsageError("no help for unknown subcommand '\(Visible.escaped(argument))'")
            }
            return .help(topic)
        }
    }

    private static func settings(_ split: Split) -> SettingOptions {
        SettingOptions(
            target: split.value(.target), monkeys: split.value(.monkeys), interval: split.value(.interval),
            alphabet: split.value(.alphabet), seed: split.value(.seed), corpus: split.value(.corpus),
            chunk: split.value(.chunk))
    }

    /// The sessions of `log` and `tail`: those named, `--all` for every
    /// one (`*`), or the default session.
    private static func sessions(_ positionals: [String], _ split: Split) throws(UsageError) -> [String] {
        if split.has(.all) {
            guard positionals.isEmpty else { throw UsageError("--all follows every session: name none with it") }
            return ["*"]
        }
        return positionals.isEmpty ? [Command.defaultSession] : positionals
    }

    /// `top -d D`: from 100ms to 24h, one second when not given.
    private static func delay(_ split: Split) throws(UsageError) -> Interval {
        guard let text = split.value(.delay) else { return Command.defaultTopDelay }
        let range = Command.shortestTopDelay...Interval.longestTick
        do {
            return try Interval.parse(text, in: range)
        } catch {
            throw UsageError(
                "-d needs a duration from \(range.lowerBound) to \(range.upperBound) (like 500ms, 2s, 1min), "
                    + "not '\(Visible.escaped(text))'\(error.hint)")
        }
    }

    /// `-n N`: a count the daemon accepts as `last=` (0 to 2^31-1).
    private static func count(_ split: Split) throws(UsageError) -> Int? {
        guard let text = split.value(.lines) else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(text),
            number <= Int(Int32.max)
        else {
            throw UsageError(
                "-n needs a whole number of entries from 0 to \(Int32.max), not '\(Visible.escaped(text))'")
        }
        return number
    }

    private static func checkOptions(_ split: Split, for subcommand: Subcommand) throws(UsageError) {
        for option in split.options where !option.name.isGlobal && !subcommand.options.contains(option.name) {
            throw UsageError.unknownOption(option.spelling, for: subcommand)
        }
    }
}

/// The words of a command line sorted into options and positionals; the
/// first mistake is kept rather than thrown, so that `--help` can still win.
private struct Split {
    struct Option {
        let name: OptionName
        /// As the user wrote it (`-n`, `--lines`), for messages.
        let spelling: String
        let value: String?
    }

    var options: [Option] = []
    var positionals: [String] = []
    var firstError: UsageError?

    init(_ arguments: [String]) {
        var words = arguments[...]
        while let word = words.popFirst() {
            if word == "--" {
                positionals.append(contentsOf: words)
                break
            }
            if word.hasPrefix("--") {
                long(word, &words)
            } else if word.hasPrefix("-") && word.count > 1 {
                shortBundle(word, &words)
            } else {
                positionals.append(word)
            }
        }
    }

    func has(_ name: OptionName) -> Bool {
        options.contains { $0.name == name }
    }

    /// Every value of an option given several times, in order.
    func values(_ name: OptionName) -> [String] {
        options.filter { $0.name == name }.compactMap(\.value)
    }

    /// The option's value; when given twice, the last one counts.
    func value(_ name: OptionName) -> String? {
        options.last { $0.name == name }?.value
    }

    private mutating func long(_ word: String, _ words: inout ArraySlice<String>) {
        let body = word.dropFirst(2)
        let equals = body.firstIndex(of: "=")
        let nameText = equals.map { body[..<$0] } ?? body
        let spelling = "--" + nameText
        guard let name = OptionName.named(long: nameText) else {
            fail(UsageError.unknownOption(Visible.escaped(spelling), for: nil))
            return
        }
        if let equals {
            guard name.takesValue else {
                fail(UsageError("option '\(spelling)' does not take a value"))
                return
            }
            options.append(Option(name: name, spelling: spelling, value: String(body[body.index(after: equals)...])))
        } else if name.takesValue {
            guard let value = words.popFirst() else {
                fail(UsageError.missingValue(spelling))
                return
            }
            options.append(Option(name: name, spelling: spelling, value: value))
        } else {
            options.append(Option(name: name, spelling: spelling, value: nil))
        }
    }

    /// `-f`, `-n5`, `-fn 5`: flags may be bundled; a letter that takes a
    /// value takes the rest of the word, or else the next word.
    private mutating func shortBundle(_ word: String, _ words: inout ArraySlice<String>) {
        var letters = word.dropFirst()
        while let letter = letters.popFirst() {
            let spelling = "-\(letter)"
            guard let name = OptionName.named(short: letter) else {
                fail(UsageError.unknownOption(Visible.escaped(spelling), for: nil))
                return
            }
            guard name.takesValue else {
                options.append(Option(name: name, spelling: spelling, value: nil))
                continue
            }
            if !letters.isEmpty {
                options.append(Option(name: name, spelling: spelling, value: String(letters)))
            } else if let value = words.popFirst() {
                options.append(Option(name: name, spelling: spelling, value: value))
            } else {
                fail(UsageError.missingValue(spelling))
            }
            return
        }
    }

    private mutating func fail(_ error: UsageError) {
        if firstError == nil { firstError = error }
    }
}
