/// One metric family of the Prometheus text exposition format (version
/// 0.0.4): its name, help text, type and samples. The samples of a family
/// are written together, after its `# HELP` and `# TYPE` lines.
public struct MetricFamily: Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    public let name: String
    public let help: String
    public let kind: Kind
    public var samples: [MetricSample]

    public init(_ name: String, _ kind: Kind, help: String, samples: [MetricSample] = []) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    /// A family of one unlabelled sample.
    public init(_ name: String, _ kind: Kind, help: String, value: Double) {
        self.init(name, kind, help: help, samples: [MetricSample(value: value)])
    }
}

/// One sample: the family's name plus `suffix` (`_bucket`, `_sum` and
/// `_count` for a histogram's parts), its labels and its value.
public struct MetricSample: Sendable {
    public var suffix: String
    public var labels: [(name: String, value: String)]
    public var value: Double

    public init(suffix: String = "", labels: [(name: String, value: String)] = [], value: Double) {
        self.suffix = suffix
        self.labels = labels
        self.value = value
    }
}

/// A histogram's buckets as it observes values: cumulative counts written
/// with `le` labels, then `_sum` and `_count`.
public struct Histogram: Sendable, Equatable {
    /// Upper bounds of the buckets, increasing; `+Inf` is implicit.
    public let bounds: [Double]
    /// Observations per bucket (not cumulative); the last is above every bound.
    private var counts: [UInt64]
    public private(set) var sum: Double = 0
    public private(set) var count: UInt64 = 0

    public init(bounds: [Double]) {
        self.bounds = bounds
        self.counts = [UInt64](repeating: 0, count: bounds.count + 1)
    }

    public mutating func observe(_ value: Double) {
        var index = 0
        while index < bounds.count && value > bounds[index] { index += 1 }
        counts[index] &+= 1
        sum += value
        count &+= 1
    }

    /// The samples of this histogram, with `labels` on each.
    public func samples(labels: [(name: String, value: String)] = []) -> [MetricSample] {
        var samples: [MetricSample] = []
        var cumulative: UInt64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += counts[index]
            samples.append(
                MetricSample(
                    suffix: "_bucket", labels: labels + [("le", Exposition.number(bound))], value: Double(cumulative)))
        }
        samples.append(MetricSample(suffix: "_bucket", labels: labels + [("le", "+Inf")], value: Double(count)))
        samples.append(MetricSample(suffix: "_sum", labels: labels, value: sum))
        samples.append(MetricSample(suffix: "_count", labels: labels, value: Double(count)))
        return samples
    }
}
