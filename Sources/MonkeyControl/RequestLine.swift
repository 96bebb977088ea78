import MonkeyCore

/// The request line that carries out a command. Values are passed on as
/// the user wrote them: `RequestCheck` has refused what no daemon accepts,
/// and the daemon says what its configuration does not allow.
enum RequestLine {
    /// The line, without its LF, or nil for local commands.
    static func request(for command: Command) -> String? {
        switch command {
        case .start(let session, let settings): RequestEncoder.line(.start, words: [session], settings: settings.pairs)
        case .stop(let session): RequestEncoder.line(.stop, words: [session])
        case .set(let session, let settings): RequestEncoder.line(.set, words: [session], settings: settings.pairs)
        case .clear(let session): RequestEncoder.line(.clear, words: [session])
        case .delete(let session): RequestEncoder.line(.delete, words: [session])
        case .status(let session): RequestEncoder.line(.status, words: session.map { [$0] } ?? [])
        case .log(let sessions, let last):
            RequestEncoder.line(.log, words: sessions, settings: last.map { [("last", String($0))] } ?? [])
        case .tail(let sessions, let last, let follow):
            RequestEncoder.line(follow ? .tail : .log, words: sessions, settings: [("last", String(last))])
        case .events(let after, let session, let follow):
            RequestEncoder.line(
                .events,
                settings: [(follow ? after : (after ?? "0")).map { ("after", $0) }, session.map { ("session", $0) }]
                    .compactMap { $0 })
        case .wait(let session, let condition, let timeout):
            RequestEncoder.line(
                .wait, words: [session],
                settings: [("for", condition)] + (timeout.map { [("timeout", $0)] } ?? []))
        case .coverage(let session, let work):
            RequestEncoder.line(.coverage, words: [session], settings: work.map { [("work", $0)] } ?? [])
        case .corpora(let alphabet):
            RequestEncoder.line(.corpora, settings: alphabet.map { [("alphabet", $0)] } ?? [])
        case .ping: RequestEncoder.line(.ping)
        case .metrics: RequestEncoder.line(.metrics)
        case .hello: RequestEncoder.line(.hello)
        case .help, .clientVersion, .odds, .corpusOdds, .replay, .top, .bridge: nil
        }
    }
}
