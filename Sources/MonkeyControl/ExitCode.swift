import MonkeyCore

/// The exit statuses of `monkeyctl`, documented in `--help` and monkeyctl(1).
/// Scripts rely on them: never renumber one, only add.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// monkeyd answered `ERR`: the request was understood and refused.
    case daemonError = 1
    /// The command line was wrong; nothing was sent.
    case usage = 2
    /// No connection to monkeyd: it is not running, or the socket is not ours to use.
    case unreachable = 3
    /// The connection broke, or monkeyd's reply could not be read, in the middle of a response.
    case connectionLost = 4
    /// `wait` timed out before its condition was met (monkeyd answered `ERR timed-out`).
    case timedOut = 5
    /// `tail -f` was interrupted again while waiting for monkeyd to end the stream.
    case interrupted = 130

    /// The one place that decides which failure ends with which status.
    public static func forFailure(_ failure: ControlFailure) -> ExitCode {
        switch failure {
        case .usage: .usage
        case .daemon(let code, _): code == ErrorCode.timedOut.rawValue ? .timedOut : .daemonError
        // Each host answered; together they are refused.
        case .hostsDiffer: .daemonError
        case .unreachable, .hostUnreachable: .unreachable
        case .connectionLost, .malformedReply, .hostLost: .connectionLost
        case .interrupted: .interrupted
        case .someHostsFailed(_, _, let first): forFailure(first)
        }
    }

    /// One line per status, for `--help` and the man page.
    static var table: [(code: Int32, meaning: String)] {
        allCases.map { code in
            switch code {
            case .success: (code.rawValue, "success")
            case .daemonError: (code.rawValue, "monkeyd answered with an error (ERR)")
            case .usage: (code.rawValue, "usage error: unknown option, missing or bad value, extra argument")
            case .unreachable:
                (code.rawValue, "cannot connect to monkeyd (not running, no access to its socket, or -H: ssh failed)")
            case .connectionLost: (code.rawValue, "the connection was lost, or the reply was malformed, mid-response")
            case .timedOut: (code.rawValue, "wait: the timeout passed before the condition was met")
            case .interrupted: (code.rawValue, "tail -f interrupted twice before monkeyd ended the stream")
            }
        }
    }
}
