/// A session's typing rate: entries per second over the last few seconds,
/// from samples of its count of entries taken as it types (`note`), read
/// for STATUS (`rate`). Without entries in the window the rate is 0.
struct RateMeter: Sendable {
    /// How far back the rate looks.
    static let window: UInt64 = 5_000_000_000
    /// The least time between two samples kept.
    static let step: UInt64 = 1_000_000_000

    /// Older samples, one a step at most, oldest first: at most a window's.
    private var samples: [Sample] = []
    /// The newest count and when it was noted.
    private var latest: Sample?
    /// From when on `latest` is kept as a sample: a step after the newest
    /// of `samples` (0 while there is none). Kept beside `latest` so that
    /// a tick reads no array (a cache miss a session with thousands of them).
    private var nextSampleTime: UInt64 = 0

    struct Sample: Sendable {
        let time: UInt64
        let count: UInt64
    }

    /// The session has typed `count` entries in all by `now` (not before
    /// the last `note`). Inlined into every tick, with what happens once a
    /// step out of line: as a call, testing two optionals, it cost a tick
    /// 22 instructions more.
    @inline(__always)
    mutating func note(_ count: UInt64, at now: UInt64) {
        if let latest {
            if now &- latest.time > Self.window {
                reset()
            } else if latest.time >= nextSampleTime {
                keep(latest, at: now)
            }
        }
        latest = Sample(time: now, count: count)
    }

    @inline(never)
    private mutating func keep(_ sample: Sample, at now: UInt64) {
        samples.append(sample)
        nextSampleTime = sample.time &+ Self.step
        // Trimmed only here: `rate` skips samples older than the window.
        while samples.count > 1 && now &- samples[1].time > Self.window { samples.removeFirst() }
    }

    /// Forgets every sample: the session stopped, or its count restarted.
    mutating func reset() {
        samples.removeAll()
        latest = nil
        nextSampleTime = 0
    }

    /// Entries per second at `now`: from the oldest sample in the window to
    /// the newest (so that it does not sink between ticks); 0 when nothing
    /// was typed in the window.
    func rate(at now: UInt64) -> Double {
        guard let latest else { return 0 }
        let now = max(now, latest.time)
        guard now - latest.time <= Self.window else { return 0 }
        guard let base = samples.first(where: { now - $0.time <= Self.window }) ?? samples.last,
            latest.time > base.time, latest.count >= base.count
        else { return 0 }
        let seconds = Double(latest.time - base.time) / 1e9
        return Double(latest.count - base.count) / seconds
    }

    /// A rate as STATUS writes it: a whole number, with one decimal below 100.
    static func text(_ rate: Double) -> String {
        guard rate.isFinite, rate > 0 else { return "0" }
        if rate >= 100 { return String(UInt64(rate.rounded())) }
        let tenths = UInt64((rate * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
    }
}
