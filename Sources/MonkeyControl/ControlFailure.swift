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
    /// `-H`: ssh did not reach `HOST`, or `monkeyctl bridge` there reached
    /// no daemon. `said` is what ssh (and the far side through it) wrote
    /// on stderr, the reason last.
    case hostUnreachable(host: String, said: [String])
    /// `-H`: the connection through ssh broke before the answer ended
    /// (ssh killed, the network gone); what ssh said, and how it ended, last.
    case hostLost(host: String, said: [String])
    /// `status` of several hosts: `failed` of them failed, each already
    /// reported; `first` is the exit status.
    indirect case someHostsFailed(failed: Int, of: Int, first: ControlFailure)
    /// `coverage` of several hosts: `host` does not run the experiment
    /// `first` runs (`what` says how it differs); nothing was united.
    case hostsDiffer(host: String, first: String, what: String)

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
        case .hostUnreachable(let host, let said):
            Self.passedOn(said) + ["monkeyctl: cannot connect to monkeyd on \(host): \(Self.lastSaid(said))"]
        case .hostLost(let host, let said):
            Self.passedOn(said) + ["monkeyctl: lost the connection to monkeyd on \(host): \(Self.lastSaid(said))"]
        case .hostsDiffer(let host, let first, let what):
            ["monkeyctl: \(host) does not run the experiment \(first) runs: \(Visible.escaped(what))"]
        case .someHostsFailed(let failed, let count, _):
            ["monkeyctl: \(failed) of \(count) hosts failed"]
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

    /// ssh's lines before its last, as it wrote them (control characters shown).
    private static func passedOn(_ said: [String]) -> [String] {
        said.dropLast().map { Visible.escaped($0) }
    }

    private static func lastSaid(_ said: [String]) -> String {
        Visible.escaped(RemoteFailure.reason(said))
    }

    static let otherSocket = "For a daemon on another socket: --socket PATH or MONKEYD_SOCKET=PATH"
}
