import MonkeyCore

/// A line of the EVENTS stream, as `top` uses it: what it can show at
/// once, or that only a new STATUS can tell what changed.
enum TopEvent: Equatable, Sendable {
    /// A hit: STATUS will say how many, beside what was typed.
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

/// A start or stop events told of since STATUS last described the
/// session: shown over every snapshot until the answer to a STATUS asked
/// after it arrived, which knows it. Only the state: counts and best
/// progress are shown as one answer gives them (`TopView.heard`).
struct SessionNews: Equatable, Sendable {
    var isRunning: Bool
    /// STATUS requests sent before this news arrived.
    var statusSentBefore: Int

    func applied(to figures: SessionFigures) -> SessionFigures {
        var figures = figures
        figures.isRunning = isRunning
        return figures
    }
}
