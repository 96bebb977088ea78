import MonkeyCore

/// One session as STATUS describes it, with the figures `top` shows read
/// into numbers once, when the line arrives.
struct SessionFigures: Equatable, Sendable {
    var name: String
    var isRunning: Bool
    var monkeys: Int
    /// As the daemon writes it (`100ms`).
    var interval: String
    /// The interval in seconds; nil if it could not be read.
    var intervalSeconds: Double?
    var alphabet: String
    /// Empty: no target.
    var target: String
    var typed: UInt64
    var entries: UInt64
    var hits: UInt64
    var best: String
    /// 1/p; nil without a target or when it is `never`.
    var expectedEntries: WideNumber?
    /// The mean wait for the next hit while typing; nil as `expectedEntries`.
    var expectedSeconds: WideNumber?
    /// The probability of at least one hit in what was typed; nil without a target.
    var chance: WideNumber?
    /// Entries a second over the last window (`TopSnapshot`); nil until
    /// there is one, or when the session was cleared meanwhile.
    var measuredRate: Double?
    /// Typed when the window began (`TopSnapshot`).
    var rateBaseTyped: UInt64?
    /// A corpus session's corpus (nil: a plain session), its coverage X/C
    /// and its longest run of covered characters.
    var corpus: String?
    var coverage: WideNumber?
    var longestRun: UInt64 = 0

    var isCorpusSession: Bool { corpus != nil }

    var hasTarget: Bool { !target.isEmpty }

    /// A target that can never be typed with these settings (p = 0).
    var isHopeless: Bool { hasTarget && expectedEntries == nil }

    /// Best progress as a fraction of the target (0 without one).
    var progress: Double {
        let length = target.unicodeScalars.count
        guard length > 0 else { return 0 }
        return Double(best.unicodeScalars.count) / Double(length)
    }

    /// The entries a second the interval sets, while running.
    var nominalRate: Double {
        guard isRunning, let seconds = intervalSeconds, seconds > 0 else { return 0 }
        return 1 / seconds
    }

    /// Reads a `session` record of STATUS; nil for another record or one
    /// without a name.
    init?(_ record: Record) {
        guard record.type == "session" else { return nil }
        var name: String?
        var figures = SessionFigures(name: "")
        for (key, value) in record.fields {
            switch key {
            case "name": name = value
            case "state": figures.isRunning = value == "running"
            case "monkeys": figures.monkeys = Int(value) ?? 0
            case "interval":
                figures.interval = value
                figures.intervalSeconds = Interval(parsing: value).map { Double($0.nanoseconds) / 1e9 }
            case "alphabet": figures.alphabet = value
            case "target": figures.target = value
            case "typed": figures.typed = UInt64(value) ?? 0
            case "entries": figures.entries = UInt64(value) ?? 0
            case "hits": figures.hits = UInt64(value) ?? 0
            case "best": figures.best = value
            case "expected_entries": figures.expectedEntries = WideNumber(parsing: value)
            case "expected_seconds": figures.expectedSeconds = WideNumber(parsing: value)
            case "chance": figures.chance = WideNumber(parsing: value)
            case "corpus": figures.corpus = value
            case "coverage": figures.coverage = WideNumber(parsing: value)
            case "longest_run": figures.longestRun = UInt64(value) ?? 0
            default: break
            }
        }
        guard let name else { return nil }
        figures.name = name
        self = figures
    }

    /// A session with these figures (for tests and the reader above).
    init(
        name: String, isRunning: Bool = false, monkeys: Int = 1, interval: String = "100ms",
        intervalSeconds: Double? = 0.1, alphabet: String = "abcdefghijklmnopqrstuvwxyz", target: String = "",
        typed: UInt64 = 0, entries: UInt64 = 0, hits: UInt64 = 0, best: String = "",
        expectedEntries: WideNumber? = nil, expectedSeconds: WideNumber? = nil, chance: WideNumber? = nil
    ) {
        self.name = name
        self.isRunning = isRunning
        self.monkeys = monkeys
        self.interval = interval
        self.intervalSeconds = intervalSeconds
        self.alphabet = alphabet
        self.target = target
        self.typed = typed
        self.entries = entries
        self.hits = hits
        self.best = best
        self.expectedEntries = expectedEntries
        self.expectedSeconds = expectedSeconds
        self.chance = chance
    }
}

/// What the daemon says about itself: HELLO and a few lines of METRICS.
struct DaemonFigures: Equatable, Sendable {
    /// From HELLO's `version=`.
    var version: String?
    /// `monkeyd_start_time_seconds`: when it started, in Unix time.
    var startTime: Double?
    /// `monkeyd_clients`.
    var clients: Int?

    /// Reads `version=` from HELLO's OK text (`monkeyd version=0.1.0 protocol=1`).
    mutating func read(hello text: String) {
        for word in text.split(separator: " ") where word.hasPrefix("version=") {
            version = String(word.dropFirst("version=".count))
        }
    }

    /// Reads one line of METRICS, keeping the samples `top` shows; the
    /// many others (ten a session) are passed over without a String.
    mutating func read(metricsLine bytes: [UInt8]) {
        guard bytes.starts(with: Self.startTime) || bytes.starts(with: Self.clients) else { return }
        read(metricsLine: String(decoding: bytes, as: UTF8.self))
    }

    private static let startTime = Array("monkeyd_start_time_seconds ".utf8)
    private static let clients = Array("monkeyd_clients ".utf8)

    /// Reads one line of METRICS, keeping the samples `top` shows.
    mutating func read(metricsLine line: String) {
        guard line.hasPrefix("monkeyd_"), let space = line.lastIndex(of: " ") else { return }
        let name = line[..<space]
        let value = line[line.index(after: space)...]
        switch name {
        case "monkeyd_start_time_seconds": startTime = Double(value)
        case "monkeyd_clients": clients = Double(value).map { Int($0) }
        default: break
        }
    }
}

/// Everything one refresh of `top` learnt, and the rate of each session
/// over the last second or so.
struct TopSnapshot: Equatable, Sendable {
    var daemon: DaemonFigures
    /// In the daemon's order (by name), each with its `measuredRate`.
    var sessions: [SessionFigures]
    /// When STATUS was answered, in monotonic nanoseconds.
    var takenAt: UInt64
    /// When the snapshot rates are measured from was taken: the first at
    /// least `rateWindow` before this one (each session keeps its typed
    /// then, `rateBaseTyped`). Events bring refreshes closer together than
    /// a second; over a shorter window a session that types once a second
    /// would read 0 or 10 a second by turns.
    private(set) var rateBaseTakenAt: UInt64

    static let rateWindow: UInt64 = 800_000_000

    /// The sessions of a STATUS answer; rates from `previous`, matched by
    /// name (in step, as the daemon lists both in the same order).
    init(daemon: DaemonFigures, sessions: [SessionFigures], takenAt: UInt64, previous: TopSnapshot? = nil) {
        self.daemon = daemon
        self.sessions = sessions
        self.takenAt = takenAt
        rateBaseTakenAt = takenAt
        measureRates(from: previous)
    }

    /// A snapshot of `sessions`, taken from the caller rather than copied,
    /// so that each session's rate is set in place (a copy of 10,000
    /// figures a second was a good part of what `top` cost).
    static func taking(
        _ sessions: inout [SessionFigures], daemon: DaemonFigures, takenAt: UInt64, previous: TopSnapshot?
    ) -> TopSnapshot {
        var snapshot = TopSnapshot(daemon: daemon, sessions: [], takenAt: takenAt)
        swap(&snapshot.sessions, &sessions)
        snapshot.measureRates(from: previous)
        return snapshot
    }

    private mutating func measureRates(from previous: TopSnapshot?) {
        guard let previous else {
            for index in sessions.indices { sessions[index].rateBaseTyped = sessions[index].typed }
            return
        }
        let matches = Self.positions(of: sessions, in: previous.sessions)
        guard takenAt >= previous.rateBaseTakenAt + Self.rateWindow else {
            rateBaseTakenAt = previous.rateBaseTakenAt
            for index in sessions.indices {
                guard let match = matches[index] else { continue }
                sessions[index].measuredRate = previous.sessions[match].measuredRate
                sessions[index].rateBaseTyped = previous.sessions[match].rateBaseTyped
            }
            return
        }
        let seconds = Double(takenAt - previous.rateBaseTakenAt) / 1e9
        for index in sessions.indices {
            let typed = sessions[index].typed
            sessions[index].rateBaseTyped = typed
            guard let match = matches[index], let before = previous.sessions[match].rateBaseTyped, typed >= before
            else { continue }
            sessions[index].measuredRate = Double(typed - before) / seconds
        }
    }

    /// Where each of `sessions` is in `previous` (by name), nil for one new
    /// since. Both are in the daemon's order, so a walk in step finds
    /// nearly all (a session new since sorts before the next old one);
    /// another order is found through an index built for it.
    static func positions(of sessions: [SessionFigures], in previous: [SessionFigures]) -> [Int?] {
        var positions = [Int?](repeating: nil, count: sessions.count)
        var cursor = 0
        var index: [String: Int]?
        var isInOrder = true
        for position in sessions.indices {
            let name = sessions[position].name
            if cursor < previous.count && previous[cursor].name == name {
                positions[position] = cursor
                cursor += 1
                continue
            }
            if position > 0 && !(sessions[position - 1].name < name) { isInOrder = false }
            // Between the last one found and the next old one: new since.
            if isInOrder && cursor < previous.count && name < previous[cursor].name { continue }
            if index == nil {
                var built: [String: Int] = [:]
                built.reserveCapacity(previous.count)
                for old in previous.indices { built[previous[old].name] = old }
                index = built
            }
            if let found = index?[name] {
                positions[position] = found
                cursor = found + 1
            }
        }
        return positions
    }

    /// Entries a second: measured over the last window, or before there
    /// was one, what the interval sets; 0 when it is stopped.
    func rate(of session: SessionFigures) -> Double {
        guard session.isRunning else { return 0 }
        return session.measuredRate ?? session.nominalRate
    }

    var totalTyped: UInt64 { sessions.reduce(0) { $0 &+ $1.typed } }
    var totalHits: UInt64 { sessions.reduce(0) { $0 &+ $1.hits } }
    var runningCount: Int { sessions.reduce(0) { $0 + ($1.isRunning ? 1 : 0) } }
}
