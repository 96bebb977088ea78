/// How the daemon's one tick timer is set, decided without a clock or a
/// timer so that every transition can be tested.
///
/// While ticks fall due within every repeating period, the timer repeats
/// from the next deadline and is left alone: setting a Dispatch timer wakes
/// Dispatch's manager thread, which with thousands of sessions was one more
/// thread wake-up per batch of ticks. The engine gives the period that serves
/// every typing session on time (see `Engine.repeatingPeriod`): the tick grid
/// when all of them tick on it, else the coalescing window. Otherwise the
/// timer fires once at the next deadline, and it is parked when there is
/// none, so that an idle daemon never wakes up.
public struct TickTimer: Sendable, Equatable {
    /// What to do to the timer.
    public enum Change: Sendable, Equatable {
        case none
        case repeating(from: UInt64, every: UInt64)
        case once(at: UInt64)
        case park
    }

    /// The period the timer repeats with, nil when it does not repeat.
    public private(set) var repeatingPeriod: UInt64?
    public var isRepeating: Bool { repeatingPeriod != nil }
    /// The deadline of the last one-shot setting, nil when parked.
    public private(set) var armedDeadline: UInt64?

    public init() {}

    /// The timer fired: a one-shot timer is no longer armed.
    public mutating func fired() {
        if !isRepeating { armedDeadline = nil }
    }

    /// The change that serves `deadline` (nil: nothing due) from `now`,
    /// repeating every `period` (nil: no repeating timer serves every session).
    public mutating func change(for deadline: UInt64?, now: UInt64, period: UInt64?) -> Change {
        if let deadline, let period, period > 0, deadline <= now &+ period {
            guard period != repeatingPeriod else { return .none }
            repeatingPeriod = period
            armedDeadline = nil
            return .repeating(from: deadline, every: period)
        }
        // Leaving the repeating mode always sets the timer, even to park it.
        let wasRepeating = isRepeating
        repeatingPeriod = nil
        guard wasRepeating || deadline != armedDeadline else { return .none }
        armedDeadline = deadline
        return deadline.map { .once(at: $0) } ?? .park
    }
}
