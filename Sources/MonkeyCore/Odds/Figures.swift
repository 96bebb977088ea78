/// The odds of one session as STATUS writes them: the protocol's fields
/// `p_hit`, `expected_entries`, `expected_seconds` and `chance`, as text
/// (see `WideNumber.formatted` for the rule) and as numbers.
public struct Figures: Sendable, Equatable {
    /// What `expected_entries` and `expected_seconds` say when p = 0.
    public static let never = "never"

    /// The figures as numbers; nil where the text is `never`.
    public struct Numbers: Sendable, Equatable {
        /// p, the probability that one entry contains the target.
        public let pHit: WideNumber
        /// 1/p, the mean number of entries from one hit to the next.
        public let expectedEntries: WideNumber?
        /// 1/p × the interval in seconds: the mean wait for the next hit while typing.
        public let expectedSeconds: WideNumber?
        /// 1 − (1 − p)^typed: the probability of at least one hit in the
        /// entries typed so far. Beside `hits` it tells how lucky the session has been.
        public let chance: WideNumber
    }

    public let numbers: Numbers
    /// `p_hit`.
    public let pHit: String
    /// `expected_entries`: a number, or `never`.
    public let expectedEntries: String
    /// `expected_seconds`: a number, or `never`.
    public let expectedSeconds: String
    /// `chance`.
    public let chance: String

    /// The protocol's `key=value` fields, in the order STATUS writes them.
    public var fields: [(key: String, value: String)] {
        [
            ("p_hit", pHit), ("expected_entries", expectedEntries), ("expected_seconds", expectedSeconds),
            ("chance", chance),
        ]
    }

    /// The protocol's names of the fields, in order.
    public static let fieldNames = ["p_hit", "expected_entries", "expected_seconds", "chance"]
}
