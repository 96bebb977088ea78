import MonkeyCore

/// Every value of a command line checked before anything is sent, by the
/// parser monkeyd itself runs, so that a bad value is a usage error (status
/// 2, nothing sent) with the daemon's own sentence.
///
/// Some bounds are the daemon's configuration (`max_monkeys`,
/// `max_target_bytes`, `max_alphabet`): a value is refused here only when
/// the widest configuration would refuse it too, and one that only some
/// configurations allow (`--monkeys 20000`) is left to the daemon, whose
/// refusal is status 1. The sentence is the one a daemon with the default
/// configuration gives.
enum RequestCheck {
    /// Throws the first value no monkeyd accepts, if any.
    static func check(_ command: Command) throws(UsageError) {
        for line in lines(for: command) { try check(line) }
    }

    /// Throws if no monkeyd would accept `line`.
    static func check(_ line: String) throws(UsageError) {
        guard let refusal = refusal(of: line, limits: Configuration.widestLimits) else { return }
        // The default limits refuse at least as much; each line below holds
        // one value, so their sentence is about the same one.
        throw UsageError((self.refusal(of: line, limits: Limits()) ?? refusal).message)
    }

    private static func refusal(of line: String, limits: Limits) -> ProtocolError? {
        do {
            _ = try RequestParser(limits: limits).parse(line)
            return nil
        } catch {
            return error
        }
    }

    /// Lines that each carry one value of the command (on a session that
    /// is surely well named), then the request itself, for what only the
    /// values together can break.
    static func lines(for command: Command) -> [String] {
        let some = Command.defaultSession
        var lines: [String]
        switch command {
        case .start(let session, let settings), .set(let session, let settings):
            lines = [RequestEncoder.line(.stop, words: [session])]
            lines += settings.pairs.map { RequestEncoder.line(.set, words: [some], settings: [$0]) }
        case .stop(let session), .clear(let session), .delete(let session), .status(let session?),
            .coverage(let session, _):
            lines = [RequestEncoder.line(.stop, words: [session])]
        case .log(let sessions, _), .tail(let sessions, _, _):
            lines = sessions.map { RequestEncoder.line(.log, words: [$0]) }
        case .events(_, let session?, _):
            lines = [RequestEncoder.line(.events, settings: [("session", session)])]
        case .wait(let session, let condition, let timeout):
            lines = [
                RequestEncoder.line(.stop, words: [session]),
                RequestEncoder.line(.wait, words: [some], settings: [("for", condition)]),
            ]
            if let timeout {
                lines.append(
                    RequestEncoder.line(.wait, words: [some], settings: [("for", "hit"), ("timeout", timeout)]))
            }
        case .status(nil), .events, .corpora, .ping, .metrics, .hello, .help, .clientVersion, .odds, .corpusOdds,
            .replay, .top,
            .bridge:
            lines = []
        }
        if let request = RequestLine.request(for: command) { lines.append(request) }
        return lines
    }
}
