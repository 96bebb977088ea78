/// How the daemon's one tick timer is set, decided without a clock or a
/// timer so that every transition can be tested.
///
/// While ticks fall due within every coalescing window, the timer repeats
/// every window and is left alone: setting a Dispatch timer wakes
/// Dispatch's manager thread, which with thousands of sessions was one more
/// thread wake-up per batch of ticks. A timer firing every window serves
/// every tick on time as long as each session may run a whole window early
/// (see `Engine.hasShortIntervals`). Otherwise it fires once at the next
/// deadline, and it is parked when there is none, so that an idle daemon
/// never wakes up.
public struct TickTimer: Sendable, Equatable {
    /// What to do to the timer.
    public enum Change: Sendable, Equatable {
        case none
        case repeating(from: UInt64, every: UInt64)
        case once(at: UInt64)
        case park
    }

    public private(set) var isRepeating = false
    /// The deadline of the last one-shot setting, nil when parked.
    public private(set) var armedDeadline: UInt64?

    public init() {}

    /// The timer fired: a one-shot timer is no longer armed.
    public mutating func fired() {
        if !isRepeating { armedDeadline = nil }
    }

    /// The change that serves `deadline` (nil: nothing due) from `now`.
    public mutating func change(
        for deadline: UInt64?, now: UInt64, window: UInt64, hasShortIntervals: Bool
    ) -> Change {
        if let deadline, window > 0, !hasShortIntervals, deadline <= now &+ window {
            guard !isRepeating else { return .none }
            isRepeating = true
            armedDeadline = nil
            return .repeating(from: deadline, every: window)
        }
        // Leaving the repeating mode always sets the timer, even to park it.
        let wasRepeating = isRepeating
        isRepeating = false
        guard wasRepeating || deadline != armedDeadline else { return .none }
        armedDeadline = deadline
        return deadline.map { .once(at: $0) } ?? .park
    }
}
