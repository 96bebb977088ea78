/// A change of state the engine made in memory, and what must happen
/// outside it for the change to hold: the daemon makes `effect` durable
/// before it sends the reply's `OK`, and if it cannot, hands the change
/// back to `Engine.revert`, which undoes it.
///
/// Its parts live in one box: a `Reply` is copied on every request, and
/// carrying the session as it was inline made every reply, PING's too,
/// hundreds of bytes longer.
public struct Change: Sendable {
    private let box: Box

    private final class Box: Sendable {
        let effect: Effect
        let undo: Undo
        let previousDue: UInt64?

        init(effect: Effect, undo: Undo, previousDue: UInt64?) {
            self.effect = effect
            self.undo = undo
            self.previousDue = previousDue
        }
    }

    /// What puts the session back as it was.
    enum Undo: Sendable {
        /// The whole session as it was (nil: there was none): START, STOP,
        /// CLEAR and DELETE.
        case session(Engine.ScheduledSession?)
        /// The settings a SET replaced, with the odds (when it changed
        /// them) and the attention id: a copy of the whole session for
        /// every SET retained and released each of its references.
        case settings(SettingsUndo, odds: Odds??, attentionID: UInt64)
    }

    init(effect: Effect, previous: Engine.ScheduledSession?, previousDue: UInt64?) {
        box = Box(effect: effect, undo: .session(previous), previousDue: previousDue)
    }

    init(effect: Effect, undo: Undo, previousDue: UInt64?) {
        box = Box(effect: effect, undo: undo, previousDue: previousDue)
    }

    /// What the store must make durable.
    public var effect: Effect { box.effect }
    /// What undoes it, and when the session was due to tick.
    var undo: Undo { box.undo }
    var previousDue: UInt64? { box.previousDue }

    public var session: SessionName { effect.session }
}

/// What makes a change durable: which session to write, and the epoch the
/// change left it in. The state itself is not kept with each change: the
/// store writes a session's state as it is once the change's group is
/// applied (`Engine.snapshot(of:)`; no tick runs between a change and its
/// commit), and of a session changed several times in a group only the
/// last record counts, so a snapshot per change would be made to be
/// thrown away.
public enum Effect: Sendable, Equatable {
    /// The session's settings and state (START, STOP, SET).
    case save(SessionName, epoch: UInt64)
    /// The session's state after a CLEAR, whose entries start again in `epoch`.
    case clear(SessionName, epoch: UInt64)
    /// The session and its entries are gone (DELETE).
    case delete(SessionName)

    /// The session it changes.
    public var session: SessionName {
        switch self {
        case .save(let name, _), .clear(let name, _), .delete(let name): name
        }
    }

    /// The epoch the session has after it (none once deleted).
    public var epoch: UInt64? {
        switch self {
        case .save(_, let epoch), .clear(_, let epoch): epoch
        case .delete: nil
        }
    }
}

extension Engine {
    /// Takes back a change the store could not make durable, putting the
    /// session back exactly as it was (settings, log, counters and
    /// schedule); returns the reply the client gets instead. Changes made
    /// after it must be reverted first.
    public mutating func revert(_ change: Change, because error: StorageError) -> Reply {
        switch change.undo {
        case .session(let previous): putBack(change.session, previous, due: change.previousDue)
        case .settings(let undo, let odds, let attentionID):
            putBack(change.session, due: change.previousDue) { scheduled in
                scheduled.session.undo(undo)
                scheduled.settingsChanged()
                if let odds { scheduled.odds = odds }
                scheduled.attentionID = attentionID
                // Safe whatever it was: the store sees the next batch at once.
                scheduled.reservationAttentionID = 0
            }
        }
        let name = change.session
        let message =
            switch change.effect {
            case .save: "could not save session \(name) durably: \(error.message)"
            case .clear: "could not clear \(name) durably: \(error.message)"
            case .delete: "could not delete \(name) durably: \(error.message)"
            }
        return .error(.storageError, message)
    }
}
