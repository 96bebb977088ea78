/// The protocol's error codes: stable words after `ERR`. New ones may be
/// added; existing ones never change meaning.
public enum ErrorCode: String, Sendable, CaseIterable {
    case unknownCommand = "unknown-command"
    case badRequest = "bad-request"
    case badArgument = "bad-argument"
    case noSuchSession = "no-such-session"
    case tooManySessions = "too-many-sessions"
    case lineTooLong = "line-too-long"
    case busy = "busy"
    case denied = "denied"
    case shuttingDown = "shutting-down"
    case storageError = "storage-error"
    /// WAIT: the condition was not met before the timeout.
    case timedOut = "timed-out"
    case `internal` = "internal"
    /// `corpus=NAME`: no directory NAME in `corpus_dir`.
    case noSuchCorpus = "no-such-corpus"
    /// `corpus=NAME`: its files cannot be a corpus (the message names the file or the limit).
    case badCorpus = "bad-corpus"
}

/// A request the daemon refuses: a code for programs and a sentence for people.
public struct ProtocolError: Error, Sendable, Equatable {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode {
    /// The code's place in `allCases`, by a switch rather than a search.
    var ordinal: Int {
        switch self {
        case .unknownCommand: 0
        case .badRequest: 1
        case .badArgument: 2
        case .noSuchSession: 3
        case .tooManySessions: 4
        case .lineTooLong: 5
        case .busy: 6
        case .denied: 7
        case .shuttingDown: 8
        case .storageError: 9
        case .timedOut: 10
        case .internal: 11
        case .noSuchCorpus: 12
        case .badCorpus: 13
        }
    }
}

extension CorpusError {
    /// The protocol's refusal of a corpus that cannot be used.
    public var protocolError: ProtocolError {
        let code: ErrorCode =
            switch kind {
            case .noSuchCorpus: .noSuchCorpus
            case .badCorpus: .badCorpus
            case .badArgument: .badArgument
            }
        return ProtocolError(code, message)
    }
}
