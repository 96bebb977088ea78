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
