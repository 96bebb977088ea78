/// Requests answered, by verb and result: the counts behind
/// `monkeyd_requests_total{verb,result}`. Both labels come from closed
/// sets (the verbs, and `ok` or an error code; `unknown` for a line that
/// names no verb), so the series are bounded whatever clients send; a
/// count is an increment in a flat array, with no string hashed.
public struct RequestCounts: Sendable, Equatable {
    private static let verbs = Verb.allCases
    private static let codes = ErrorCode.allCases
    /// Row `verb` (the unknown verb last), column `result` (`ok` first).
    private var counts = [UInt64](repeating: 0, count: (verbs.count + 1) * (codes.count + 1))

    public init() {}

    /// Counts one request: its verb (nil when the line named none) and its
    /// error code (nil when it was answered `OK`, or its stream began).
    public mutating func note(_ verb: Verb?, _ error: ErrorCode?) {
        counts[Self.index(verb, error)] &+= 1
    }

    public func count(_ verb: Verb?, _ error: ErrorCode?) -> UInt64 {
        counts[Self.index(verb, error)]
    }

    private static func index(_ verb: Verb?, _ error: ErrorCode?) -> Int {
        let row = verb?.ordinal ?? verbs.count
        let column = error.map { $0.ordinal + 1 } ?? 0
        return row * (codes.count + 1) + column
    }

    /// The label a line that names no verb is counted under.
    public static let unknownVerb = "unknown"

    /// One sample per verb answered `ok` (zero included, so that every
    /// verb's rate is defined from the first scrape), then one per verb and
    /// error code that occurred.
    public func samples() -> [MetricSample] {
        var samples: [MetricSample] = []
        for (row, verb) in (Self.verbs.map(Optional.some) + [nil]).enumerated() {
            let label = verb?.rawValue.lowercased() ?? Self.unknownVerb
            for column in 0...Self.codes.count {
                let count = counts[row * (Self.codes.count + 1) + column]
                guard count > 0 || (column == 0 && verb != nil) else { continue }
                let result = column == 0 ? "ok" : Self.codes[column - 1].rawValue
                samples.append(MetricSample(labels: [("verb", label), ("result", result)], value: Double(count)))
            }
        }
        return samples
    }
}
