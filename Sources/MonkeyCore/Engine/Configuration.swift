/// The daemon's configuration: `monkeyd.conf`, lines of `key = value` with
/// `#` comments. Every key is optional; an unknown key or a bad value is an
/// error naming its line, never silently ignored.
public struct Configuration: Sendable, Equatable {
    public var limits = Limits()
    /// How often typed entries are synced to disk.
    public var syncInterval = Interval(nanoseconds: 1_000_000_000)
    /// How large the entries journal grows before it is folded into the
    /// sessions' entries files.
    public var journalSize = 64 << 20
    /// How large a segment of the control log grows before it is compacted
    /// into a snapshot (when it is also twice the last snapshot's size).
    public var controlLogSize = 8 << 20
    /// How many of the newest events the EVENTS stream keeps, in memory and on disk.
    public var maximumEvents = 10_000
    /// Send every typed entry to the journal too (it floods it: off by default).
    public var logTyped = false
    /// Mode of a socket the daemon creates.
    public var socketMode: UInt32 = 0o660
    /// Group of a socket the daemon creates, and whose members may change state.
    public var socketGroup = "monkeyd"
    /// How long a connection may hold half a request line before it is closed.
    public var idleTimeout = Interval(nanoseconds: 60_000_000_000)
    /// Where the metrics are served over HTTP; nil: nowhere (unless systemd
    /// passes a socket named `metrics`).
    public var metricsListen: ListenAddress?
    /// Connections the metrics listener serves at once; the next is
    /// answered `503` and closed.
    public var maximumMetricsClients = 16
    /// How long a metrics connection lives from its accept: its request and
    /// the whole answer must fit in it (a slow peer is cut).
    public var metricsTimeout = Interval(nanoseconds: 10_000_000_000)
    /// Threads that type flat-out sessions; nil: one for each processor
    /// the daemon may use (`auto`). Read at start-up only.
    public var typingThreads: Int?
    /// The most typing threads a configuration may ask for.
    public static let typingThreadLimit = 1024
    /// Where the corpora are (`corpus_dir`); nil: `corpora` in the state directory.
    public var corpusDirectory: String?

    public init() {}

    /// `corpus_dir`, or its default inside `stateDirectory`.
    public func corpusDirectory(stateDirectory: String) -> String {
        corpusDirectory ?? stateDirectory + "/corpora"
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let message: String

        public var description: String { "line \(line): \(message)" }
    }

    /// Every key, in the order the man page lists them.
    public static let keys = [
        "max_line_length", "max_monkeys", "max_target_bytes", "max_alphabet", "max_sessions", "max_clients",
        "max_entries", "max_pending_output", "sync_interval", "journal_size", "control_log_size", "max_events",
        "log_typed", "socket_mode", "socket_group", "idle_timeout", "metrics_listen", "max_metrics_clients",
        "metrics_timeout", "typing_threads", "corpus_dir", "max_corpus_bytes",
    ]

    public static func parse(_ text: String) throws(Problem) -> Configuration {
        var configuration = Configuration()
        var seen = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let content = line.trimmingBlanks()
            if content.isEmpty { continue }
            guard let equals = content.firstIndex(of: "=") else {
                throw Problem(line: number, message: "expected 'key = value', found '\(content)'")
            }
            let key = String(content[..<equals].trimmingBlanks())
            var value = String(content[content.index(after: equals)...].trimmingBlanks())
            if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard keys.contains(key) else {
                throw Problem(
                    line: number, message: "unknown key '\(key)'; known keys: \(keys.joined(separator: ", "))")
            }
            guard seen.insert(key).inserted else { throw Problem(line: number, message: "'\(key)' is set twice") }
            do {
                try configuration.set(key, value)
            } catch let message {
                throw Problem(line: number, message: "\(key): \(message.text)")
            }
        }
        return configuration
    }

    /// What the limits a request's values are checked against may be set to.
    private static let lineLengths = 64...(1 << 20)
    private static let monkeys = 1...1_000_000
    private static let targetSizes = 0...(1 << 20)
    private static let alphabetSizes = 1...65_536

    /// The widest limits a monkeyd.conf may set: a request these refuse,
    /// every monkeyd refuses. `monkeyctl` checks its requests against them
    /// before sending, and leaves what only a configuration allows to the
    /// daemon.
    public static let widestLimits: Limits = {
        var limits = Limits()
        limits.maximumLineLength = lineLengths.upperBound
        limits.maximumMonkeys = monkeys.upperBound
        limits.maximumTargetBytes = targetSizes.upperBound
        limits.maximumAlphabet = alphabetSizes.upperBound
        return limits
    }()

    private struct Message: Error {
        let text: String
    }

    private mutating func set(_ key: String, _ value: String) throws(Message) {
        switch key {
        case "max_line_length": limits.maximumLineLength = try Self.count(value, Self.lineLengths)
        case "max_monkeys": limits.maximumMonkeys = try Self.count(value, Self.monkeys)
        case "max_target_bytes": limits.maximumTargetBytes = try Self.count(value, Self.targetSizes)
        case "max_alphabet": limits.maximumAlphabet = try Self.count(value, Self.alphabetSizes)
        case "max_sessions": limits.maximumSessions = try Self.count(value, 1...1_000_000)
        case "max_clients": limits.maximumClients = try Self.count(value, 1...100_000)
        case "max_entries": limits.maximumEntries = try Self.count(value, 1...10_000_000)
        case "max_pending_output": limits.maximumPendingOutput = try Self.bytes(value, 4096...(1 << 30))
        case "sync_interval": syncInterval = try Self.duration(value, .millisecond...Interval.longestTick)
        case "journal_size": journalSize = try Self.bytes(value, (64 << 10)...(1 << 30))
        case "control_log_size": controlLogSize = try Self.bytes(value, (64 << 10)...(1 << 30))
        case "max_events": maximumEvents = try Self.count(value, 1...10_000_000)
        case "idle_timeout": idleTimeout = try Self.duration(value, .millisecond...Interval.longestTick)
        case "log_typed": logTyped = try Self.boolean(value)
        case "metrics_listen":
            do {
                metricsListen = value.isEmpty ? nil : try ListenAddress.parse(value)
            } catch {
                throw Message(text: error.description)
            }
        case "max_metrics_clients": maximumMetricsClients = try Self.count(value, 1...100_000)
        case "metrics_timeout": metricsTimeout = try Self.duration(value, .millisecond...Interval.longestTick)
        case "typing_threads":
            typingThreads = value == "auto" ? nil : try Self.count(value, 1...Self.typingThreadLimit, orAuto: true)
        case "corpus_dir":
            guard value.isEmpty || value.hasPrefix("/") else {
                throw Message(
                    text: "expected an absolute path (or nothing, for corpora in the state directory), not '\(value)'")
            }
            corpusDirectory = value.isEmpty ? nil : value
        case "max_corpus_bytes":
            limits.maximumCorpusBytes = try Self.bytes(value, 1...CorpusLimits.largestCorpusBytes)
        case "socket_mode":
            guard let mode = UInt32(value, radix: 8), mode <= 0o777 else {
                throw Message(text: "expected an octal mode such as 0660, not '\(value)'")
            }
            socketMode = mode
        case "socket_group":
            guard !value.isEmpty else { throw Message(text: "expected a group name") }
            socketGroup = value
        default:
            throw Message(text: "unknown key")
        }
    }

    private static func count(_ value: String, _ range: ClosedRange<Int>, orAuto: Bool = false) throws(Message) -> Int {
        guard let number = Int(value.replacingUnderscores()), range.contains(number) else {
            let auto = orAuto ? " or auto" : ""
            throw Message(
                text: "expected a whole number from \(range.lowerBound) to \(range.upperBound)\(auto), not '\(value)'")
        }
        return number
    }

    /// A byte count, optionally with a K, M or G suffix (powers of 1024).
    private static func bytes(_ value: String, _ range: ClosedRange<Int>) throws(Message) -> Int {
        var digits = value
        var scale = 1
        for (suffix, factor) in [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)] where value.hasSuffix(suffix) {
            digits = String(value.dropLast())
            scale = factor
        }
        guard let number = Int(digits.replacingUnderscores()),
            case let (total, overflow) = number.multipliedReportingOverflow(by: scale),
            !overflow, range.contains(total)
        else {
            throw Message(
                text:
                    "expected a size from \(range.lowerBound) to \(range.upperBound) bytes (K, M, G allowed), not '\(value)'"
            )
        }
        return total
    }

    private static func duration(_ value: String, _ range: ClosedRange<Interval>) throws(Message) -> Interval {
        do {
            return try Interval.parse(value, in: range)
        } catch {
            throw Message(
                text: "expected a duration from \(range.lowerBound) to \(range.upperBound), not '\(value)'\(error.hint)"
            )
        }
    }

    private static func boolean(_ value: String) throws(Message) -> Bool {
        switch value.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw Message(text: "expected yes or no, not '\(value)'")
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingBlanks() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return Substring(self[first...last])
    }

    fileprivate func replacingUnderscores() -> String {
        String(filter { $0 != "_" })
    }
}
