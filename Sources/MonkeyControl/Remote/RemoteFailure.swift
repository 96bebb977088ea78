import MonkeyShell

/// What an ssh child's end says about a connection that ended before its
/// answer did: pure, from its exit and its standard error.
enum RemoteFailure {
    /// The exit status of a `monkeyctl bridge` that lost its daemon.
    static let bridgeLostStatus = ExitCode.connectionLost.rawValue

    /// Nothing came back and ssh failed (255: unreachable, refused; 127:
    /// no `monkeyctl` there; the bridge's own "cannot connect"): the host
    /// was not reached. Anything else, and whatever happens once the daemon
    /// has answered, is a lost connection. Nil when ssh ended cleanly: the
    /// far daemon closed, which the failure as it is says.
    static func failure(host: String, ending: Syscalls.ChildEnding, said: [String], hadAnswered: Bool)
        -> ControlFailure?
    {
        switch ending {
        case .exited(0):
            return nil
        case .exited(let status) where !hadAnswered && status != bridgeLostStatus:
            return .hostUnreachable(host: host, said: said.isEmpty ? ["ssh exited with status \(status)"] : said)
        case .exited(let status):
            return .hostLost(host: host, said: said.isEmpty ? ["ssh exited with status \(status)"] : said)
        case .killed(let signal):
            return .hostLost(host: host, said: said + ["ssh was killed by signal \(signal)"])
        }
    }

    /// The last line ssh said, as the reason on monkeyctl's line: the far
    /// monkeyctl's own `monkeyctl: ` taken off, as it is said again here.
    static func reason(_ said: [String]) -> String {
        let last = said.last ?? "ssh failed"
        return last.hasPrefix("monkeyctl: ") ? String(last.dropFirst("monkeyctl: ".count)) : last
    }
}
