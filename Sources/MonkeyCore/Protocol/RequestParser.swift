/// Reads one request line: bytes → text → tokens → a validated `Request`.
/// Every refusal is a `ProtocolError` naming the offending token.
public struct RequestParser: Sendable {
    public let limits: Limits

    public init(limits: Limits) {
        self.limits = limits
    }

    /// The request on the line, or nil for an empty line.
    public func parse(_ line: [UInt8]) throws(ProtocolError) -> Request? {
        if let request = Self.bareVerb(line) { return request }
        var bytes = line[...]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        if let change = bytes.withUnsafeBufferPointer({ Self.plainChange(in: $0, limits: limits) }) { return change }
        if let plain = bytes.withUnsafeBufferPointer({ Self.plainWords(in: $0, readingVerb: true) }) {
            guard let verb = plain.verb else { return try parse(plain.tokens) }
            return try parse(verb, plain.tokens[...])
        }
        if bytes.contains(0) { throw ProtocolError(.badRequest, "the request contains a NUL byte") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ProtocolError(.badRequest, "the request is not valid UTF-8")
        }
        return try parse(Tokenizer.tokens(in: text))
    }

    /// The tokens of a line of printable ASCII words and bare settings only
    /// (`CLEAR q`, `SET q monkeys=7`), read straight from the bytes: the
    /// tokenizer gives the same, by way of a validated string. Nil for
    /// anything else (quotes, other bytes, a token starting with `=`).
    static func plainWords(_ line: ArraySlice<UInt8>) -> [Token]? {
        line.withUnsafeBufferPointer { plainWords(in: $0, readingVerb: false)?.tokens }
    }

    /// `plainWords` where the bytes lie: a string decoded from a buffer
    /// takes the fast path, from an array slice the generic one.
    /// `readingVerb`: a first word that is a verb is answered as one, not
    /// made a string and left out of the tokens.
    private static func plainWords(
        in bytes: UnsafeBufferPointer<UInt8>, readingVerb: Bool
    ) -> (verb: Verb?, tokens: [Token])? {
        var tokens: [Token] = []
        // A verb, a session and a setting or two: one allocation, not three.
        tokens.reserveCapacity(4)
        var start: Int?
        var equals: Int?
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var verb: Verb?
        func add(_ start: Int, _ end: Int) {
            if let equals {
                tokens.append(.setting(key: text(start..<equals), value: text((equals + 1)..<end)))
            } else if readingVerb && tokens.isEmpty && verb == nil,
                let spelled = Verb(spelling: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            {
                verb = spelled
            } else {
                tokens.append(.word(text(start..<end)))
            }
        }
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 {
                if let wordStart = start {
                    add(wordStart, index)
                    start = nil
                    equals = nil
                }
                continue
            }
            guard byte > 0x20 && byte < 0x7F && byte != 0x22 else { return nil }
            if byte == 0x3D && equals == nil {
                // The tokenizer refuses a setting without a key.
                guard start != nil else { return nil }
                equals = index
            }
            if start == nil { start = index }
        }
        if let wordStart = start { add(wordStart, bytes.endIndex) }
        return (verb, tokens)
    }

    /// Verbs that stand alone, with the request each one is on its own line.
    private static let bareVerbs: [(spelling: [UInt8], request: Request)] = [
        (Array("PING".utf8), .ping), (Array("STATUS".utf8), .status(nil)), (Array("HELLO".utf8), .hello),
        (Array("HELP".utf8), .help), (Array("QUIT".utf8), .quit),
    ]

    /// A line that is just an argument-less verb (`PING`, `status`), read
    /// straight from the bytes: the most frequent control-plane lines skip
    /// decoding, tokenizing and their allocations. Anything else is nil and
    /// takes the full path, which gives the same answer for these lines.
    static func bareVerb(_ line: [UInt8]) -> Request? {
        var count = line.count
        if count > 0 && line[count - 1] == 0x0D { count -= 1 }
        guard count >= 4 && count <= 6 else { return nil }
        candidates: for (spelling, request) in bareVerbs where spelling.count == count {
            for index in 0..<count {
                let byte = line[index]
                // ASCII letters only: lower case is upper case with bit 5 set.
                guard byte == spelling[index] || byte == spelling[index] | 0x20 else { continue candidates }
            }
            return request
        }
        return nil
    }

    public func parse(_ text: String) throws(ProtocolError) -> Request? {
        try parse(Tokenizer.tokens(in: text))
    }

    private func parse(_ allTokens: [Token]) throws(ProtocolError) -> Request? {
        var tokens = allTokens[...]
        guard let first = tokens.popFirst() else { return nil }
        guard case .word(let word) = first, let verb = Verb(spelling: word) else {
            throw ProtocolError(.unknownCommand, "unknown command \(Self.quote(Self.spelling(of: first))); try HELP")
        }
        return try parse(verb, tokens)
    }

    /// The request of a verb and the tokens after it.
    private func parse(_ verb: Verb, _ tokens: ArraySlice<Token>) throws(ProtocolError) -> Request {
        var arguments = Arguments(verb: verb, tokens: tokens)
        let request: Request
        switch verb {
        case .ping: request = .ping
        case .hello: request = .hello
        case .help: request = .help
        case .quit: request = .quit
        case .metrics: request = .metrics
        case .start: request = .start(try arguments.session(), try settings(arguments.settings(), verb: verb))
        case .stop: request = .stop(try arguments.session())
        case .set:
            let name = try arguments.session()
            let change = try settings(arguments.settings(), verb: verb)
            if change.isEmpty {
                throw ProtocolError(.badRequest, "SET needs at least one key=value; usage: \(verb.usage)")
            }
            request = .set(name, change)
        case .clear: request = .clear(try arguments.session())
        case .delete: request = .delete(try arguments.session())
        case .status: request = .status(try arguments.optionalSession())
        case .log, .tail:
            let patterns = try arguments.patterns()
            let query = try query(arguments.settings())
            if query.after != nil, patterns.count != 1 || patterns[0].isGlob {
                throw ProtocolError(
                    .badRequest, "after= needs a single session name, not several or a glob; usage: \(verb.usage)")
            }
            request = verb == .log ? .log(patterns, query) : .tail(patterns, query)
        case .events: request = .events(try events(arguments.settings()))
        case .wait:
            let name = try arguments.session()
            let (condition, timeout) = try wait(arguments.settings(), verb: verb)
            request = .wait(name, condition, timeout: timeout)
        case .coverage:
            let name = try arguments.session()
            request = .coverage(name, try coverage(arguments.settings()))
        case .corpora:
            var query = CorporaQuery()
            for (key, value) in arguments.settings() {
                guard key == "alphabet" else {
                    throw ProtocolError(.badArgument, "unknown key \(Self.quote(key)); the key is alphabet")
                }
                guard query.alphabet == nil else { throw Self.repeated(key) }
                query.alphabet = try alphabet(value)
            }
            request = .corpora(query)
        }
        try arguments.finish()
        return request
    }

    private func settings(_ pairs: SettingTokens, verb: Verb) throws(ProtocolError)
        -> SettingsChange
    {
        var change = SettingsChange()
        for (key, value) in pairs {
            switch key {
            case "monkeys":
                guard change.monkeys == nil else { throw Self.repeated(key) }
                change.monkeys = try whole(key, value, in: Self.monkeys(limits))
            case "interval":
                guard change.interval == nil else { throw Self.repeated(key) }
                change.interval = try interval(value)
            case "alphabet":
                guard change.alphabet == nil else { throw Self.repeated(key) }
                change.alphabet = try alphabet(value)
            case "target":
                guard change.target == nil else { throw Self.repeated(key) }
                let size = value.utf8.count
                guard size <= limits.maximumTargetBytes else {
                    throw ProtocolError(
                        .badArgument, "target is \(size) bytes; at most \(limits.maximumTargetBytes) are allowed")
                }
                guard !value.unicodeScalars.contains(where: Alphabet.isControl) else {
                    throw ProtocolError(.badArgument, "target may not contain control characters")
                }
                change.target = value
            case "seed":
                guard change.seed == nil else { throw Self.repeated(key) }
                if value.isEmpty {
                    change.seed = .fresh
                } else if let seed = TypingSeed(parsing: value) {
                    change.seed = .seed(seed)
                } else {
                    throw ProtocolError(
                        .badArgument,
                        "seed must be a whole number from 0 to \(UInt64.max), or empty for fresh randomness, not \(Self.quote(value))"
                    )
                }
            case "corpus":
                guard change.corpus == nil else { throw Self.repeated(key) }
                if value.isEmpty {
                    change.corpus = .plain
                } else {
                    guard SessionName(value) != nil else {
                        throw ProtocolError(
                            .badArgument,
                            "invalid corpus name \(Self.quote(value)): use 1 to 64 of A-Z a-z 0-9 _ . - , not starting with . or -"
                        )
                    }
                    change.corpus = .named(value)
                }
            case "chunk":
                guard change.chunk == nil else { throw Self.repeated(key) }
                change.chunk = try whole(key, value, in: SessionSettings.chunks)
            default:
                throw ProtocolError(
                    .badArgument,
                    "unknown key \(Self.quote(key)) for \(verb.rawValue); keys are target, corpus, chunk, monkeys, interval, alphabet, seed"
                )
            }
        }
        if change.target != nil && change.corpus != nil {
            throw ProtocolError(
                .badRequest, "target= and corpus= are never set together: a session types a target or covers a corpus")
        }
        return change
    }

    private func query(_ pairs: SettingTokens) throws(ProtocolError) -> LogQuery {
        var query = LogQuery()
        for (key, value) in pairs {
            switch key {
            case "last":
                guard query.last == nil else { throw Self.repeated(key) }
                query.last = try whole(key, value, in: 0...Int(Int32.max))
            case "after":
                guard query.after == nil else { throw Self.repeated(key) }
                query.after = try Self.afterID(value, "an entry id")
            default:
                throw ProtocolError(.badArgument, "unknown key \(Self.quote(key)); keys are last and after")
            }
        }
        return query
    }

    private func events(_ pairs: SettingTokens) throws(ProtocolError) -> EventsQuery {
        var query = EventsQuery()
        for (key, value) in pairs {
            switch key {
            case "after":
                guard query.after == nil else { throw Self.repeated(key) }
                query.after = try Self.afterID(value, "an event id")
            case "session":
                guard query.session == nil else { throw Self.repeated(key) }
                guard let pattern = SessionPattern(value) else { throw Self.badPattern(value) }
                query.session = pattern
            default:
                throw ProtocolError(.badArgument, "unknown key \(Self.quote(key)); keys are after and session")
            }
        }
        return query
    }

    private func coverage(_ pairs: SettingTokens) throws(ProtocolError) -> CoverageQuery {
        var query = CoverageQuery()
        var format: String?
        for (key, value) in pairs {
            switch key {
            case "work":
                guard query.work == nil else { throw Self.repeated(key) }
                guard SessionName(value) != nil else {
                    throw ProtocolError(.badArgument, "invalid work name \(Self.quote(value))")
                }
                query.work = value
            case "format":
                guard format == nil else { throw Self.repeated(key) }
                guard value == "bitmap" || value == "table" else {
                    throw ProtocolError(.badArgument, "format must be table or bitmap, not \(Self.quote(value))")
                }
                format = value
                query.bitmap = value == "bitmap"
            default:
                throw ProtocolError(.badArgument, "unknown key \(Self.quote(key)); keys are work and format")
            }
        }
        if query.bitmap && query.work != nil {
            throw ProtocolError(.badRequest, "format=bitmap gives every work's bits; it takes no work=")
        }
        return query
    }

    private func wait(_ pairs: SettingTokens, verb: Verb) throws(ProtocolError)
        -> (WaitCondition, Interval?)
    {
        var condition: WaitCondition?
        var timeout: Interval?
        for (key, value) in pairs {
            switch key {
            case "for":
                guard condition == nil else { throw Self.repeated(key) }
                switch value {
                case "hit": condition = .hit
                case "stopped": condition = .stopped
                case _ where value.hasPrefix("best="):
                    condition = .best(try whole("best", String(value.dropFirst(5)), in: 1...limits.maximumTargetBytes))
                case _ where value.hasPrefix("coverage="):
                    condition = .coverage(try whole("coverage", String(value.dropFirst(9)), in: 1...100))
                default:
                    throw ProtocolError(
                        .badArgument, "for must be hit, stopped, best=N or coverage=P, not \(Self.quote(value))")
                }
            case "timeout":
                guard timeout == nil else { throw Self.repeated(key) }
                let range = Self.shortestTimeout...limits.longestInterval
                timeout = try Self.duration(
                    value, in: range,
                    "timeout must be a duration from \(range.lowerBound) to \(range.upperBound) (like 50ms, 10s)")
            default:
                throw ProtocolError(.badArgument, "unknown key \(Self.quote(key)); keys are for and timeout")
            }
        }
        guard let condition else {
            throw ProtocolError(.badRequest, "WAIT needs for=hit, for=stopped or for=best=N; usage: \(verb.usage)")
        }
        return (condition, timeout)
    }

    /// The id of `after=` (LOG, TAIL, EVENTS): digits only, since
    /// `UInt64("+5")` would accept a sign the grammar does not have.
    private static func afterID(_ value: String, _ what: String) throws(ProtocolError) -> UInt64 {
        guard value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let id = UInt64(value) else {
            throw ProtocolError(.badArgument, "after must be \(what) (a whole number), not \(quote(value))")
        }
        return id
    }

    static func badPattern(_ text: String) -> ProtocolError {
        ProtocolError(
            .badArgument,
            "invalid session name or glob \(quote(text)): use 1 to 64 of A-Z a-z 0-9 _ . - , or a glob of them with * ? [...]"
        )
    }

    private func whole(_ key: String, _ value: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int {
        // Digits only: Int("+5") would accept a sign the grammar does not have.
        // Read from the bytes where they lie: every SET of monkeys comes here.
        let parsed = value.utf8.withContiguousStorageIfAvailable(Self.digits) ?? Self.digits(Array(value.utf8))
        guard let number = parsed, range.contains(number) else {
            throw ProtocolError(
                .badArgument,
                "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(Self.quote(value))"
            )
        }
        return number
    }

    /// A whole number written in decimal digits only; nil for anything
    /// else, nothing, or a number past `Int.max`.
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var number = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times10, overflowTimes) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflowPlus) = times10.addingReportingOverflow(Int(byte - 0x30))
            guard !overflowTimes && !overflowPlus else { return nil }
            number = sum
        }
        return number
    }

    private static func digits(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer(digits)
    }

    /// The numbers of monkeys a session may have.
    static func monkeys(_ limits: Limits) -> ClosedRange<Int> { 1...limits.maximumMonkeys }

    /// An interval a session may type at, from its text; nil for any other.
    /// 0 is flat out: entries back to back on the typing threads.
    static func interval(_ value: String, _ limits: Limits) -> Interval? {
        guard let interval = Interval(parsing: value),
            interval == .flatOut || (interval >= limits.shortestInterval && interval <= limits.longestInterval)
        else { return nil }
        return interval
    }

    private func interval(_ value: String) throws(ProtocolError) -> Interval {
        if let interval = Interval(parsing: value), interval == .flatOut { return interval }
        let range = limits.shortestInterval...limits.longestInterval
        return try Self.duration(
            value, in: range,
            "interval must be 0 (flat out) or a duration from \(range.lowerBound) to \(range.upperBound) "
                + "(like 250ms, 1.5s, 2min)")
    }

    /// The shortest WAIT timeout: any that is not zero.
    static let shortestTimeout = Interval(nanoseconds: 1)

    /// A duration within `range`, or `bad-argument` with `rule`, the value,
    /// and what the duration parser adds (`write 1.5s or 1.5ms`).
    private static func duration(_ value: String, in range: ClosedRange<Interval>, _ rule: String)
        throws(ProtocolError) -> Interval
    {
        do {
            return try Interval.parse(value, in: range)
        } catch {
            throw ProtocolError(.badArgument, "\(rule), not \(quote(value))\(error.hint)")
        }
    }

    private func alphabet(_ value: String) throws(ProtocolError) -> Alphabet {
        do {
            return try Alphabet(validating: value, limit: limits.maximumAlphabet)
        } catch {
            switch error {
            case .empty: throw ProtocolError(.badArgument, "alphabet may not be empty")
            case .tooMany(let count, let limit):
                throw ProtocolError(.badArgument, "alphabet has \(count) characters; at most \(limit) are allowed")
            case .repeated(let character):
                throw ProtocolError(.badArgument, "alphabet repeats the character \(Self.quote(String(character)))")
            case .controlCharacter: throw ProtocolError(.badArgument, "alphabet may not contain control characters")
            }
        }
    }

    private static func repeated(_ key: String) -> ProtocolError {
        ProtocolError(.badArgument, "\(key) is given twice")
    }

    private static func spelling(of token: Token) -> String {
        switch token {
        case .word(let word): word
        case .setting(let key, let value): "\(key)=\(value)"
        }
    }

    /// Quotes a client's token for an error message, shortened so that a
    /// hostile token cannot make a long or multi-line error.
    static func quote(_ text: String) -> String {
        var shown = String(
            text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        if text.unicodeScalars.count > 40 { shown += "…" }
        return "'\(shown)'"
    }
}

/// The positional arguments and settings after the verb, consumed in order.
private struct Arguments {
    let verb: Verb
    var tokens: ArraySlice<Token>

    mutating func session() throws(ProtocolError) -> SessionName {
        guard let name = try optionalSession() else {
            throw ProtocolError(.badRequest, "\(verb.rawValue) needs a session name; usage: \(verb.usage)")
        }
        return name
    }

    mutating func optionalSession() throws(ProtocolError) -> SessionName? {
        guard case .word(let word) = tokens.first else { return nil }
        tokens.removeFirst()
        guard let name = SessionName(word) else {
            throw ProtocolError(
                .badArgument,
                "invalid session name \(RequestParser.quote(word)): use 1 to 64 of A-Z a-z 0-9 _ . - , not starting with . or -"
            )
        }
        return name
    }

    /// One or more session names or globs (TAIL).
    mutating func patterns() throws(ProtocolError) -> [SessionPattern] {
        var patterns: [SessionPattern] = []
        while case .word(let word) = tokens.first {
            tokens.removeFirst()
            guard let pattern = SessionPattern(word) else { throw RequestParser.badPattern(word) }
            patterns.append(pattern)
        }
        guard !patterns.isEmpty else {
            throw ProtocolError(.badRequest, "\(verb.rawValue) needs a session name or glob; usage: \(verb.usage)")
        }
        return patterns
    }

    /// The settings that come next, read where they lie.
    mutating func settings() -> SettingTokens {
        let settings = tokens.prefix { if case .setting = $0 { true } else { false } }
        tokens = tokens[settings.endIndex...]
        return SettingTokens(tokens: settings)
    }

    func finish() throws(ProtocolError) {
        guard let extra = tokens.first else { return }
        switch extra {
        case .word(let word):
            throw ProtocolError(
                .badRequest, "unexpected argument \(RequestParser.quote(word)); usage: \(verb.usage)")
        case .setting(let key, _):
            throw ProtocolError(
                .badArgument, "\(verb.rawValue) takes no setting \(RequestParser.quote(key)); usage: \(verb.usage)")
        }
    }
}

/// `key=value` tokens as pairs, without an array of their own: SET and
/// START are the requests most often parsed.
private struct SettingTokens: Sequence, IteratorProtocol {
    var tokens: ArraySlice<Token>

    mutating func next() -> (key: String, value: String)? {
        guard case .setting(let key, let value) = tokens.popFirst() else { return nil }
        return (key, value)
    }
}

extension LineFramer.Frame {
    /// The verb a line names, for counting requests that were refused
    /// before they were parsed whole: the first word, if it is a verb in
    /// any case; nil for a line too long or one that names no verb.
    public var verb: Verb? {
        guard case .line(let bytes) = self else { return nil }
        var word: [UInt8] = []
        for byte in bytes {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == 0x0D {
                if word.isEmpty { continue }
                break
            }
            // No verb is longer than this; a longer word is not one.
            guard word.count < 8, byte >= 0x41 && byte <= 0x7A else { return nil }
            word.append(byte)
        }
        return Verb(spelling: word)
    }
}
