import MonkeyCore
import MonkeyShell

/// What the daemon counts as it works, for METRICS: an increment where a
/// thing happens, never a scan at a scrape. The store counts its own
/// (`FileStore.Counters`), the engine the sessions' and tick lateness.
struct Counters {
    /// When the daemon started, in seconds since the Unix epoch.
    let startTime = Syscalls.wallClockSeconds()
    /// What woke the queue (see `WakeUps`).
    var wakeUps = WakeUps()
    /// Requests answered, by verb and result (see `RequestCounts`).
    var requests = RequestCounts()
    /// Entries not written to followers that did not read (see `FollowerBacklog`).
    var followerEntriesLost: UInt64 = 0
    /// Answers of the metrics listener, by status.
    var httpResponses = HTTPStatusCounts()
    /// Clients turned away over `max_clients` and `max_metrics_clients`.
    var refusedControlClients: UInt64 = 0
    var refusedMetricsClients: UInt64 = 0
}
