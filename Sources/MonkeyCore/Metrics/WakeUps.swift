/// How often the daemon's queue woke up, by what woke it: the daemon's own
/// count of its wake-ups, so that "an idle daemon does not wake up" is
/// checked exactly rather than by watching the machine's context switches.
public struct WakeUps: Sendable, Equatable {
    /// What wakes the daemon's queue.
    public enum Source: String, Sendable, CaseIterable {
        /// The poller: a client, the listening socket or a signal.
        case connections
        case tickTimer = "tick_timer"
        case syncTimer = "sync_timer"
        /// The storage thread finished a sync.
        case syncCompletion = "sync_completion"
        case statusTimer = "status_timer"
        case idleTimer = "idle_timer"
        case waitTimer = "wait_timer"
        case watchdogTimer = "watchdog_timer"
        /// Accepting connections again after the system ran out of descriptors.
        case acceptRetry = "accept_retry"
    }

    private var counts = [UInt64](repeating: 0, count: Source.allCases.count)

    public init() {}

    public mutating func note(_ source: Source) {
        counts[source.index] &+= 1
    }

    public func count(of source: Source) -> UInt64 {
        counts[source.index]
    }
}

extension WakeUps.Source {
    fileprivate var index: Int {
        Self.allCases.firstIndex(of: self) ?? 0
    }
}
