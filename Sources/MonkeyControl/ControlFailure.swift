import MonkeyShell

/// Why a `monkeyctl` command did not succeed; each case has one exit status
/// (`ExitCode.forFailure`) and one line for stderr (`message`).
public enum ControlFailure: Error, Sendable, Equatable {
    /// The command line could not be understood.
    case usage(UsageError)
    /// monkeyd refused the request with `ERR code message`. The code is kept
    /// as text: a newer daemon may send codes this client does not know.
    case daemon(code: String, message: String)
    /// The socket could not be connected to.
    case unreachable(path: String, error: SystemError)
    /// The connection failed before the status line arrived.
    case connectionLost(reason: String)
    /// A line of the reply is neither a record nor a status line.
    case malformedReply(line: String)
    /// `tail -f` was interrupted again before monkeyd confirmed the end.
    case interrupted

    /// The lines written to stderr, each without its newline.
    public var messageLines: [String] {
        switch self {
        case .usage(let error):
            ["monkeyctl: \(error.message)", "Try 'monkeyctl --help'."]
        case .daemon(let code, let message):
            ["monkeyctl: \(Visible.escaped(message)) (\(Visible.escaped(code)))"]
        case .unreachable(let path, let error):
            ["monkeyctl: cannot connect to monkeyd at \(path): \(error.reason)\(Self.hint(error))"]
        case .connectionLost(let reason):
            ["monkeyctl: lost the connection to monkeyd: \(reason)"]
        case .malformedReply(let line):
            ["monkeyctl: malformed reply from monkeyd: \(Visible.shortened(line, limit: 80))"]
        case .interrupted:
            ["monkeyctl: interrupted"]
        }
    }

    /// What the operator most likely has to do about a failed connect: a
    /// daemon may be running elsewhere (a per-user one, seen from root,
    /// or `make run`'s), which the two ways of naming a socket reach.
    private static func hint(_ error: SystemError) -> String {
        if error.isNobodyListening { return " (is monkeyd running? \(otherSocket))" }
        if error.isAccessDenied { return " (is your user in the monkeyd group?)" }
        return ""
    }

    static let otherSocket = "For a daemon on another socket: --socket PATH or MONKEYD_SOCKET=PATH"
}
