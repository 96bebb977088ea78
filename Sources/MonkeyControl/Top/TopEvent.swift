import MonkeyCore

/// A line of the EVENTS stream, as `top` uses it: what it can show at
/// once, or that only a new STATUS can tell what changed.
enum TopEvent: Equatable, Sendable {
    /// A hit: one more than STATUS last said.
    case hit(session: String)
    /// Best progress grew to this text.
    case best(session: String, best: String)
    case started(session: String)
    case stopped(session: String)
    /// Created, deleted, cleared, changed settings, restored (of this
    /// session), or events skipped (`lost`, nil): a new STATUS will tell.
    case changed(session: String?)

    /// Reads an `event` or `lost` record; nil for other records (none is
    /// expected) and for events of kinds that change nothing on screen.
    init?(_ record: Record) {
        switch record.type {
        case "lost":
            self = .changed(session: nil)
            return
        case "event":
            break
        default:
            return nil
        }
        guard let session = record.value("session"), let kind = record.value("kind") else { return nil }
        switch kind {
        case "hit": self = .hit(session: session)
        case "best": self = .best(session: session, best: record.value("best") ?? "")
        case "started": self = .started(session: session)
        case "stopped": self = .stopped(session: session)
        default: self = .changed(session: session)
        }
    }
}

/// What events said about one session since STATUS last described it:
/// shown over every snapshot until the answer to a STATUS asked after the
/// news arrived, which knows it.
struct SessionNews: Equatable, Sendable {
    /// Hits, at least (they only grow between the CLEARs that make `top` ask again).
    var hits: UInt64?
    var best: String?
    var isRunning: Bool?
    /// STATUS requests sent before the latest of this news arrived.
    var statusSentBefore: Int

    /// The figures with this news: never fewer hits or a shorter best
    /// than they have (an answer can know more than the news).
    func applied(to figures: SessionFigures) -> SessionFigures {
        var figures = figures
        if let hits, hits > figures.hits { figures.hits = hits }
        if let best, best.unicodeScalars.count > figures.best.unicodeScalars.count { figures.best = best }
        if let isRunning { figures.isRunning = isRunning }
        return figures
    }
}
