/// Which entries LOG and TAIL replay: those after `after`, then the last `last`.
public struct LogQuery: Sendable, Equatable {
    public var last: Int?
    public var after: UInt64?

    public init(last: Int? = nil, after: UInt64? = nil) {
        self.last = last
        self.after = after
    }
}

/// Which events EVENTS replays and streams.
public struct EventsQuery: Sendable, Equatable {
    /// Replay the retained events after this id; nil: only new ones.
    public var after: UInt64?
    /// Only events of sessions this matches; nil: every session's.
    public var session: SessionPattern?

    public init(after: UInt64? = nil, session: SessionPattern? = nil) {
        self.after = after
        self.session = session
    }
}

/// What WAIT waits for.
public enum WaitCondition: Sendable, Equatable {
    /// A hit typed after the WAIT arrived.
    case hit
    /// The session stops (met at once when it is stopped).
    case stopped
    /// Best progress of at least this many characters (met at once when it has them).
    case best(Int)
    /// A corpus session's coverage of at least this many percent (met at once when it has it).
    case coverage(Int)

    public var text: String {
        switch self {
        case .hit: "hit"
        case .stopped: "stopped"
        case .best(let length): "best=\(length)"
        case .coverage(let percent): "coverage=\(percent)"
        }
    }
}

/// CORPORA: the alphabet the corpora are normalised for (nil: the
/// default), and what the daemon found in `corpus_dir`, in byte order of
/// the names (nil until it has looked).
public struct CorporaQuery: Sendable, Equatable {
    public var alphabet: Alphabet?
    public var found: [Found]?

    /// One directory of `corpus_dir`: its works as read, or why they cannot be a corpus.
    public enum Found: Sendable, Equatable {
        case source(CorpusSource)
        case refused(name: String, CorpusError)
    }

    public init(alphabet: Alphabet? = nil, found: [Found]? = nil) {
        self.alphabet = alphabet
        self.found = found
    }
}

/// One parsed, validated request.
public enum Request: Sendable, Equatable {
    case ping
    case hello
    case help
    case quit
    // Boxed: a `SettingsChange` is five times the size of every other
    // case, and a request is copied several times on its way.
    indirect case start(SessionName, SettingsChange)
    case stop(SessionName)
    indirect case set(SessionName, SettingsChange)
    case clear(SessionName)
    case delete(SessionName)
    case status(SessionName?)
    /// One session, or several and globs (see `SessionPattern`).
    case log([SessionPattern], LogQuery)
    /// One session, or several and globs (see `SessionPattern`).
    case tail([SessionPattern], LogQuery)
    case metrics
    case events(EventsQuery)
    case wait(SessionName, WaitCondition, timeout: Interval?)
    case coverage(SessionName, CoverageQuery)
    /// The corpora of `corpus_dir`, their files read by the daemon first.
    indirect case corpora(CorporaQuery)

    public var verb: Verb {
        switch self {
        case .ping: .ping
        case .hello: .hello
        case .help: .help
        case .quit: .quit
        case .start: .start
        case .stop: .stop
        case .set: .set
        case .clear: .clear
        case .delete: .delete
        case .status: .status
        case .log: .log
        case .tail: .tail
        case .metrics: .metrics
        case .events: .events
        case .wait: .wait
        case .coverage: .coverage
        case .corpora: .corpora
        }
    }
}
