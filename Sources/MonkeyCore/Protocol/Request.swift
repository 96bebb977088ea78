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
        case .log: "LOG session [last=N] [after=ID]"
        case .tail: "TAIL session [last=N] [after=ID]"
        case .help: "HELP"
        case .quit: "QUIT"
        case .metrics: "METRICS"
        }
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

/// One parsed, validated request.
public enum Request: Sendable, Equatable {
    case ping
    case hello
    case help
    case quit
    case start(SessionName, SettingsChange)
    case stop(SessionName)
    case set(SessionName, SettingsChange)
    case clear(SessionName)
    case delete(SessionName)
    case status(SessionName?)
    case log(SessionName, LogQuery)
    case tail(SessionName, LogQuery)
    case metrics

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
        }
    }
}
