/// The verbs of protocol version 1, and everything the daemon knows of
/// each in one table (`row`): its name, whether it changes state, its
/// usage line and its place among the metrics' rows. The parser, the
/// access check, HELP and METRICS read it. New verbs may be added; none
/// is removed.
public enum Verb: CaseIterable, Sendable {
    case ping, hello, start, stop, set, clear, delete, status, log, tail, help, quit, metrics, events, wait, coverage,
        corpora

    /// What a verb may do: read, or change state (allowed only to
    /// privileged peers, see `Peer.mayChange`).
    public enum Access: Sendable, Equatable {
        case reads
        case changesState
    }

    /// One row of the table. Its texts are static: every request reads its
    /// verb's row (the access check, the count), and a row of `String`s
    /// cost a release of each at every read.
    public struct Row: Sendable {
        /// The verb as the protocol spells it (in any case on the wire).
        public let name: StaticString
        public let access: Access
        /// HELP's usage line, also quoted by the parser's refusals.
        public let usage: StaticString
        /// Its row in `RequestCounts` (`monkeyd_requests_total`): its
        /// place in `allCases`, stated rather than searched for, since
        /// every request is counted (a test holds the two equal).
        public let ordinal: Int
    }

    /// The table. Exhaustive, with no default: a new verb must say here
    /// whether it changes state, or the core does not compile, so that no
    /// verb is open to every peer by omission.
    @inline(__always)
    public var row: Row {
        switch self {
        case .ping: Row(name: "PING", access: .reads, usage: "PING", ordinal: 0)
        case .hello: Row(name: "HELLO", access: .reads, usage: "HELLO", ordinal: 1)
        case .start:
            Row(
                name: "START", access: .changesState,
                usage: "START session [target=T|corpus=NAME] [chunk=K] [monkeys=N] [interval=D] [alphabet=A] [seed=S]",
                ordinal: 2)
        case .stop: Row(name: "STOP", access: .changesState, usage: "STOP session", ordinal: 3)
        case .set: Row(name: "SET", access: .changesState, usage: "SET session key=value...", ordinal: 4)
        case .clear: Row(name: "CLEAR", access: .changesState, usage: "CLEAR session", ordinal: 5)
        case .delete: Row(name: "DELETE", access: .changesState, usage: "DELETE session", ordinal: 6)
        case .status: Row(name: "STATUS", access: .reads, usage: "STATUS [session]", ordinal: 7)
        case .log: Row(name: "LOG", access: .reads, usage: "LOG session|glob... [last=N] [after=ID]", ordinal: 8)
        case .tail: Row(name: "TAIL", access: .reads, usage: "TAIL session|glob... [last=N] [after=ID]", ordinal: 9)
        case .help: Row(name: "HELP", access: .reads, usage: "HELP", ordinal: 10)
        case .quit: Row(name: "QUIT", access: .reads, usage: "QUIT", ordinal: 11)
        case .metrics: Row(name: "METRICS", access: .reads, usage: "METRICS", ordinal: 12)
        case .events: Row(name: "EVENTS", access: .reads, usage: "EVENTS [after=ID] [session=GLOB]", ordinal: 13)
        case .wait:
            Row(
                name: "WAIT", access: .reads,
                usage: "WAIT session for=hit|stopped|best=N|coverage=P [timeout=D]", ordinal: 14)
        case .coverage:
            Row(
                name: "COVERAGE", access: .reads, usage: "COVERAGE session [work=NAME] [format=bitmap]", ordinal: 15)
        case .corpora: Row(name: "CORPORA", access: .reads, usage: "CORPORA [alphabet=A]", ordinal: 16)
        }
    }

    /// The name, as the protocol spells it. (Not a `RawRepresentable`
    /// raw value: verbs would then be compared by their names.)
    public var rawValue: String { row.name.description }

    /// Allowed only to privileged peers.
    public var changesState: Bool { row.access == .changesState }

    public var usage: String { row.usage.description }

    /// Its row in `RequestCounts`.
    var ordinal: Int { row.ordinal }

    /// The verb `bytes` spell in any ASCII case, or nil. ASCII case only:
    /// Unicode case mapping would make `ſtop` a verb. Every request is
    /// looked up so: the word's bytes, upper-cased, are packed into one
    /// integer and compared with each verb's, with no string built.
    public init?(spelling bytes: some Collection<UInt8>) {
        guard let key = Self.key(bytes), let index = Self.keys.firstIndex(of: key) else { return nil }
        self = Self.allCases[index]
    }

    /// The verb a word spells: read from the word's bytes where they lie,
    /// which is several times faster than through its UTF-8 view.
    public init?(spelling word: String) {
        let found = word.utf8.withContiguousStorageIfAvailable { Verb(spelling: $0) } ?? Verb(spelling: word.utf8)
        guard let found else { return nil }
        self = found
    }

    private static let keys: [UInt64] = allCases.map { key($0.rawValue.utf8) ?? 0 }

    /// Up to eight bytes, ASCII letters upper-cased; nil for a longer word or
    /// one holding a NUL (which would pack like a shorter word).
    private static func key(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard !bytes.isEmpty && bytes.count <= 8 else { return nil }
        var key: UInt64 = 0
        for byte in bytes {
            guard byte != 0 else { return nil }
            key = key << 8 | UInt64(byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte)
        }
        return key
    }
}
