/// The verbs of protocol version 1. New verbs may be added; none is removed.
public enum Verb: String, Sendable, CaseIterable {
    case ping = "PING"
    case hello = "HELLO"
    case start = "START"
    case stop = "STOP"
    case set = "SET"
    case clear = "CLEAR"
    case delete = "DELETE"
    case status = "STATUS"
    case log = "LOG"
    case tail = "TAIL"
    case help = "HELP"
    case quit = "QUIT"
    case metrics = "METRICS"
    case events = "EVENTS"
    case wait = "WAIT"

    /// Verbs that change state, allowed only to privileged peers.
    public var changesState: Bool {
        switch self {
        case .start, .stop, .set, .clear, .delete: true
        default: false
        }
    }

    public var usage: String {
        switch self {
        case .ping: "PING"
        case .hello: "HELLO"
        case .start: "START session [target=T] [monkeys=N] [interval=D] [alphabet=A] [seed=S]"
        case .stop: "STOP session"
        case .set: "SET session key=value..."
        case .clear: "CLEAR session"
        case .delete: "DELETE session"
        case .status: "STATUS [session]"
        case .log: "LOG session|glob... [last=N] [after=ID]"
        case .tail: "TAIL session|glob... [last=N] [after=ID]"
        case .help: "HELP"
        case .quit: "QUIT"
        case .metrics: "METRICS"
        case .events: "EVENTS [after=ID] [session=GLOB]"
        case .wait: "WAIT session for=hit|stopped|best=N [timeout=D]"
        }
    }

    /// The verb `bytes` spell in any ASCII case, or nil. ASCII case only:
    /// Unicode case mapping would make `ſtop` a verb. Every request is
    /// looked up so: the word's bytes, upper-cased, are packed into one
    /// integer and compared with each verb's, with no string built.
    public init?(spelling bytes: some Collection<UInt8>) {
        guard let key = Self.key(bytes), let index = Self.keys.firstIndex(of: key) else { return nil }
        self = Self.allCases[index]
    }

    /// The verb a word spells: read from the word's bytes where they lie,
    /// which is several times faster than through its UTF-8 view.
    public init?(spelling word: String) {
        let found = word.utf8.withContiguousStorageIfAvailable { Verb(spelling: $0) } ?? Verb(spelling: word.utf8)
        guard let found else { return nil }
        self = found
    }

    private static let keys: [UInt64] = allCases.map { key($0.rawValue.utf8) ?? 0 }

    /// Up to eight bytes, ASCII letters upper-cased; nil for a longer word or
    /// one holding a NUL (which would pack like a shorter word).
    private static func key(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard !bytes.isEmpty && bytes.count <= 8 else { return nil }
        var key: UInt64 = 0
        for byte in bytes {
            guard byte != 0 else { return nil }
            key = key << 8 | UInt64(byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte)
        }
        return key
    }
}

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

    public var text: String {
        switch self {
        case .hit: "hit"
        case .stopped: "stopped"
        case .best(let length): "best=\(length)"
        }
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
        }
    }
}
