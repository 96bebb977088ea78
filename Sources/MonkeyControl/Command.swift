import MonkeyCore

/// The subcommands of `monkeyctl`, as spelled on the command line.
public enum Subcommand: String, Sendable, CaseIterable {
    case start, stop, set, clear, delete, status, log, tail, events, wait, top, ping, hello, version, metrics, help,
        odds,
        replay,
        bridge,
        coverage,
        corpora

    /// The options this subcommand accepts besides the global ones.
    var options: Set<OptionName> {
        switch self {
        case .start, .set: [.target, .monkeys, .interval, .alphabet, .seed, .corpus, .chunk]
        case .coverage: [.work]
        case .corpora: [.alphabet]
        case .odds: [.target, .monkeys, .interval, .alphabet, .corpus, .chunk, .coverage]
        case .replay: [.seed, .id, .monkeys, .alphabet]
        case .log: [.lines, .all]
        case .tail: [.lines, .follow, .all]
        case .events: [.follow, .after, .session]
        case .wait: [.hit, .stopped, .best, .coverage, .timeout]
        case .top: [.once, .delay]
        case .stop, .clear, .delete, .status, .ping, .hello, .version, .metrics, .help, .bridge: []
        }
    }

    /// How many positional arguments it takes after its name.
    var maximumPositionals: Int {
        switch self {
        case .ping, .hello, .version, .metrics, .odds, .replay, .events, .top, .bridge, .corpora: 0
        case .start, .stop, .set, .clear, .delete, .status, .wait, .help, .coverage: 1
        case .log, .tail: Int.max
        }
    }
}

/// Settings given to `start` or `set`, as text: the daemon validates them
/// (and `RequestCheck` first, by the daemon's rules).
public struct SettingOptions: Sendable, Equatable {
    public var target: String?
    public var monkeys: String?
    public var interval: String?
    public var alphabet: String?
    /// Empty returns the session to fresh randomness.
    public var seed: String?
    /// A corpus to cover (empty: a plain session again), and the window length.
    public var corpus: String?
    public var chunk: String?

    public init(
        target: String? = nil, monkeys: String? = nil, interval: String? = nil, alphabet: String? = nil,
        seed: String? = nil, corpus: String? = nil, chunk: String? = nil
    ) {
        self.target = target
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.seed = seed
        self.corpus = corpus
        self.chunk = chunk
    }

    public var isEmpty: Bool { pairs.isEmpty }

    /// The protocol's `key=value` settings, in a fixed order.
    var pairs: [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        if let target { pairs.append(("target", target)) }
        if let monkeys { pairs.append(("monkeys", monkeys)) }
        if let interval { pairs.append(("interval", interval)) }
        if let alphabet { pairs.append(("alphabet", alphabet)) }
        if let seed { pairs.append(("seed", seed)) }
        if let corpus { pairs.append(("corpus", corpus)) }
        if let chunk { pairs.append(("chunk", chunk)) }
        return pairs
    }
}

/// `odds`: settings checked as the daemon checks them, for a computation
/// that needs no daemon.
public struct OddsQuestion: Sendable, Equatable {
    /// Not empty.
    public var target: String
    public var monkeys: Int
    public var alphabet: Alphabet
    public var interval: Interval

    public init(target: String, monkeys: Int, alphabet: Alphabet, interval: Interval) {
        self.target = target
        self.monkeys = monkeys
        self.alphabet = alphabet
        self.interval = interval
    }
}

/// `odds --corpus`: a corpus (a name in `corpus_dir`, or a directory when
/// it holds a `/`) and the settings that decide its expected coverage.
public struct CorpusOddsQuestion: Sendable, Equatable {
    public var corpus: String
    public var chunk: Int
    public var alphabet: Alphabet
    /// With both, the time it takes too.
    public var monkeys: Int?
    public var interval: Interval?
    /// The coverage asked about, from 0 to 1 exclusive (99.99 %: 0.9999).
    public var fraction: Double
    /// As given, for the report (`99.99`).
    public var percent: String

    public init(
        corpus: String, chunk: Int, alphabet: Alphabet, monkeys: Int?, interval: Interval?, fraction: Double,
        percent: String
    ) {
        self.corpus = corpus
        self.chunk = chunk
        self.alphabet = alphabet
        self.monkeys = monkeys
        self.interval = interval
        self.fraction = fraction
        self.percent = percent
    }
}

/// `replay`: which entry of which seeded session to type again.
public struct ReplayQuestion: Sendable, Equatable {
    public var seed: TypingSeed
    /// At least 1.
    public var id: UInt64
    public var monkeys: Int
    public var alphabet: Alphabet

    public init(seed: TypingSeed, id: UInt64, monkeys: Int, alphabet: Alphabet) {
        self.seed = seed
        self.id = id
        self.monkeys = monkeys
        self.alphabet = alphabet
    }
}

/// What one run of `monkeyctl` does, decided from the command line alone.
public enum Command: Sendable, Equatable {
    case start(session: String, settings: SettingOptions)
    case stop(session: String)
    case set(session: String, settings: SettingOptions)
    case clear(session: String)
    case delete(session: String)
    /// One session, or all of them when nil.
    case status(session: String?)
    /// The retained log, or its last `last` entries, of one session or
    /// several (names or globs; `*` for `--all`).
    case log(sessions: [String], last: Int?)
    case tail(sessions: [String], last: Int, follow: Bool)
    /// The stream of events: the retained ones after `after` (all without
    /// it, unless following, when only new ones), then new ones.
    case events(after: String?, session: String?, follow: Bool)
    /// A corpus session's coverage: the table of its works, or one work's
    /// text; with several `-H`, the union of the same-named session's
    /// coverage on every host (its table).
    case coverage(session: String, work: String?)
    /// The corpora of the daemon's `corpus_dir`, normalised for an alphabet (nil: the default).
    case corpora(alphabet: String?)
    /// Waits for a hit, a stop, best progress or coverage (`hit`, `stopped`, `best=N`, `coverage=P`).
    case wait(session: String, condition: String, timeout: String?)
    case ping
    /// The daemon's metrics, as the Prometheus text format or JSON Lines of samples.
    case metrics
    /// The daemon's greeting; `showsClientVersion` for the `version` spelling.
    case hello(showsClientVersion: Bool)
    /// Local help, global or for one subcommand.
    case help(Subcommand?)
    /// `--version`: the client's version, without asking the daemon.
    case clientVersion
    /// The odds of a target, computed here by the daemon's own code.
    case odds(OddsQuestion)
    /// The expected coverage of a corpus, computed here by the daemon's own code.
    case corpusOdds(CorpusOddsQuestion)
    /// The text of one entry of a seeded session, typed again here.
    case replay(ReplayQuestion)
    /// The full-screen live view, refreshed every `delay` (and as events
    /// come), or with `once` (or off a terminal) one snapshot table.
    case top(once: Bool, delay: Interval)
    /// Standard input and output joined to the daemon's socket, for
    /// `ssh HOST monkeyctl bridge` (see `Bridge`); not in the global help.
    case bridge

    /// The sessions whose entries a command prints (`log`, `tail`); nil for others.
    var sessionsShown: [String]? {
        switch self {
        case .log(let sessions, _), .tail(let sessions, _, _): sessions
        default: nil
        }
    }

    /// Whether it talks to a daemon (and so may go through `-H`).
    var reachesDaemon: Bool {
        switch self {
        case .help, .clientVersion, .odds, .corpusOdds, .replay, .bridge: false
        case .start, .stop, .set, .clear, .delete, .status, .log, .tail, .events, .wait, .ping, .metrics, .hello,
            .top, .coverage, .corpora:
            true
        }
    }

    /// Whether `-H` may be given several times: one table of every host's answer.
    var takesSeveralHosts: Bool {
        switch self {
        case .status, .coverage: true
        default: false
        }
    }

    /// The session a command works on when none is named.
    public static let defaultSession = "default"

    /// The entries `tail` shows when `-n` is not given.
    public static let defaultTailCount = 10

    /// How often `top` asks for fresh figures, and the shortest `-d` it takes.
    public static let defaultTopDelay = Interval(nanoseconds: 1_000_000_000)
    public static let shortestTopDelay = Interval(nanoseconds: 100_000_000)
}

/// A parsed command line: the command and how to reach and answer.
public struct Invocation: Sendable, Equatable {
    public var command: Command
    /// `--socket`, when given; otherwise the default rules apply.
    public var socketPath: String?
    /// `-H`, each time given: the hosts whose daemons to ask (through ssh);
    /// empty for this one's. More than one only for `status`.
    public var hosts: [String]
    public var isJSON: Bool

    public init(command: Command, socketPath: String? = nil, hosts: [String] = [], isJSON: Bool = false) {
        self.command = command
        self.socketPath = socketPath
        self.hosts = hosts
        self.isJSON = isJSON
    }
}
