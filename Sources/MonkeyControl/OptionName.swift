/// Every option `monkeyctl` knows, global or belonging to a subcommand.
enum OptionName: Sendable, CaseIterable, Hashable {
    case socket, host, json, help, version
    case target, monkeys, interval, alphabet
    case lines, follow
    case seed, id
    case all, after, session, hit, stopped, best, timeout
    case once, delay
    case corpus, chunk, work, coverage

    var long: String {
        switch self {
        case .socket: "socket"
        case .host: "host"
        case .json: "json"
        case .help: "help"
        case .version: "version"
        case .target: "target"
        case .monkeys: "monkeys"
        case .interval: "interval"
        case .alphabet: "alphabet"
        case .lines: "lines"
        case .follow: "follow"
        case .seed: "seed"
        case .id: "id"
        case .all: "all"
        case .after: "after"
        case .session: "session"
        case .hit: "hit"
        case .stopped: "stopped"
        case .best: "best"
        case .timeout: "timeout"
        case .once: "once"
        case .delay: "delay"
        case .corpus: "corpus"
        case .chunk: "chunk"
        case .work: "work"
        case .coverage: "coverage"
        }
    }

    var short: Character? {
        switch self {
        case .help: "h"
        case .host: "H"
        case .lines: "n"
        case .follow: "f"
        case .delay: "d"
        default: nil
        }
    }

    var takesValue: Bool {
        switch self {
        case .socket, .host, .target, .monkeys, .interval, .alphabet, .lines, .seed, .id, .after, .session, .best,
            .timeout,
            .delay, .corpus, .chunk, .work, .coverage:
            true
        case .json, .help, .version, .follow, .all, .hit, .stopped, .once: false
        }
    }

    /// Options accepted by every subcommand, before or after it.
    var isGlobal: Bool {
        switch self {
        case .socket, .host, .json, .help, .version: true
        default: false
        }
    }

    static func named(long name: Substring) -> OptionName? {
        allCases.first { $0.long == name }
    }

    static func named(short letter: Character) -> OptionName? {
        allCases.first { $0.short == letter }
    }
}
