/// A histogram of durations: observed in nanoseconds with integer
/// arithmetic only (a few comparisons and three additions, cheap enough for
/// every tick), written in seconds as Prometheus wants them, with
/// cumulative `le` buckets, then `_sum` and `_count`.
public struct DurationHistogram: Sendable, Equatable {
    /// Upper bounds of the buckets in nanoseconds, increasing; `+Inf` is implicit.
    public let bounds: [UInt64]
    /// Observations per bucket (not cumulative), `bounds.count + 1` of
    /// them; the last is above every bound. Held in the histogram itself:
    /// an array's uniqueness check at every observation was most of what
    /// a tick's lateness cost.
    private var counts = InlineArray<17, UInt64>(repeating: 0)
    public private(set) var sumNanoseconds: UInt64 = 0
    public private(set) var count: UInt64 = 0

    /// The most bounds a histogram has: one less than `counts` holds.
    static let mostBounds = 16

    public init(bounds: [UInt64]) {
        precondition(bounds.isInIncreasingOrder, "histogram bounds must increase")
        precondition(bounds.count <= Self.mostBounds, "a histogram has at most \(Self.mostBounds) bounds")
        self.bounds = bounds
    }

    public static func == (left: DurationHistogram, right: DurationHistogram) -> Bool {
        left.bounds == right.bounds && left.sumNanoseconds == right.sumNanoseconds && left.count == right.count
            && left.counts.indices.allSatisfy { left.counts[$0] == right.counts[$0] }
    }

    /// 100 µs to 1 s: how late a tick runs (a healthy daemon is well under
    /// a millisecond; a tick more than 20 ms late is skipped, not made up).
    public static let latencyBounds: [UInt64] = [
        100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 500_000_000, 1_000_000_000,
    ]

    /// 100 µs to 10 s: how long a write and its sync take (a disk's
    /// `fdatasync` is tens of µs to tens of ms; a stalled disk, seconds).
    public static let syncBounds: [UInt64] = [
        100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000,
    ]

    public mutating func observe(nanoseconds: UInt64) {
        let index = bounds.withUnsafeBufferPointer { bounds in
            var index = 0
            while index < bounds.count && nanoseconds > bounds[index] { index &+= 1 }
            return index
        }
        counts[index] &+= 1
        sumNanoseconds &+= nanoseconds
        count &+= 1
    }

    /// Observations of at most `bound` nanoseconds (`bound` one of `bounds`).
    public func count(atMost bound: UInt64) -> UInt64 {
        var total: UInt64 = 0
        for (index, upper) in bounds.enumerated() where upper <= bound { total += counts[index] }
        return total
    }

    /// The samples of this histogram, with `labels` on each.
    public func samples(labels: [(name: String, value: String)] = []) -> [MetricSample] {
        var samples: [MetricSample] = []
        samples.reserveCapacity(bounds.count + 3)
        var cumulative: UInt64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += counts[index]
            samples.append(
                MetricSample(
                    suffix: "_bucket", labels: labels + [("le", Exposition.number(Double(bound) / 1e9))],
                    value: Double(cumulative)))
        }
        samples.append(MetricSample(suffix: "_bucket", labels: labels + [("le", "+Inf")], value: Double(count)))
        samples.append(MetricSample(suffix: "_sum", labels: labels, value: Double(sumNanoseconds) / 1e9))
        samples.append(MetricSample(suffix: "_count", labels: labels, value: Double(count)))
        return samples
    }
}
