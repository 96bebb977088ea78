/// Decides when the daemon tells systemd its one-line status: only when the
/// line changed, at most once per period, and never on its own, so that an
/// idle daemon arms no timer. The daemon owns the timer; this owns the rules.
public struct StatusThrottle: Sendable, Equatable {
    /// The shortest time between two status lines, in nanoseconds.
    public let period: UInt64
    public private(set) var lastSent: String?
    private var lastSentAt: UInt64?
    /// When the pending timer fires, if one is armed.
    public private(set) var armedDeadline: UInt64?

    public init(period: UInt64 = 1_000_000_000) {
        self.period = period
    }

    /// Something that may change the status happened at `now`: the deadline
    /// to arm a one-shot timer for, or nil when one is armed already.
    public mutating func noteChange(now: UInt64) -> UInt64? {
        guard armedDeadline == nil else { return nil }
        let earliest = lastSentAt.map { $0 &+ period } ?? now
        let deadline = max(now, earliest)
        armedDeadline = deadline
        return deadline
    }

    /// The timer fired (or start-up or a reload wants the status now): the
    /// line to send, or nil when it is the one systemd already has.
    public mutating func fire(_ line: String, now: UInt64) -> String? {
        armedDeadline = nil
        guard line != lastSent else { return nil }
        lastSent = line
        lastSentAt = now
        return line
    }
}
