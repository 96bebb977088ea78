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
        let previous: Engine.ScheduledSession?
        let previousDue: UInt64?

        init(effect: Effect, previous: Engine.ScheduledSession?, previousDue: UInt64?) {
            self.effect = effect
            self.previous = previous
            self.previousDue = previousDue
        }
    }

    init(effect: Effect, previous: Engine.ScheduledSession?, previousDue: UInt64?) {
        box = Box(effect: effect, previous: previous, previousDue: previousDue)
    }

    /// What the store must make durable.
    public var effect: Effect { box.effect }
    /// The session as it was before, and when it was due to tick.
    var previous: Engine.ScheduledSession? { box.previous }
    var previousDue: UInt64? { box.previousDue }

    public var session: SessionName { effect.session }
}

/// What makes a change durable.
public enum Effect: Sendable, Equatable {
    /// The session's settings and state (START, STOP, SET).
    case save(SessionSnapshot)
    /// The session without its entries, numbering from 1 again (CLEAR).
    case clear(SessionSnapshot)
    /// The session and its entries are gone (DELETE).
    case delete(SessionName)

    /// The session it changes.
    public var session: SessionName {
        switch self {
        case .save(let snapshot), .clear(let snapshot): snapshot.name
        case .delete(let name): name
        }
    }

    /// The epoch the session has after it (none once deleted).
    public var epoch: UInt64? {
        switch self {
        case .save(let snapshot), .clear(let snapshot): snapshot.epoch
        case .delete: nil
        }
    }
}

/// Why a change could not be made durable, in words for the operator.
public struct StorageError: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}

extension Engine {
    /// Takes back a change the store could not make durable, putting the
    /// session back exactly as it was (settings, log, counters and
    /// schedule); returns the reply the client gets instead. Changes made
    /// after it must be reverted first.
    public mutating func revert(_ change: Change, because error: StorageError) -> Reply {
        putBack(change.session, change.previous, due: change.previousDue)
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
