/// What a session types, how much and how often.
public struct SessionSettings: Sendable, Equatable {
    public var monkeys: Int
    public var interval: Interval
    public var alphabet: Alphabet
    public var target: TargetMatcher
    /// With a seed, each entry's text is a pure function of the seed and
    /// its id (see `SeededTyping`); without one, fresh randomness.
    public var seed: TypingSeed?
    /// The corpus a corpus session covers (its name in `corpus_dir`);
    /// empty for a plain session. Never set together with a target.
    public var corpus: String = ""
    /// K, the window length of a corpus session (`chunk=`).
    public var chunk: Int = SessionSettings.defaultChunk

    /// `chunk=`'s default: Anderson's 9-letter chunks.
    public static let defaultChunk = 9
    /// The window lengths a corpus session may have.
    public static let chunks = 1...64

    /// Whether it is a corpus session.
    public var isCorpusSession: Bool { !corpus.isEmpty }

    /// Whether the control file must hold a corpus and a chunk length.
    var storesCorpus: Bool { isCorpusSession || chunk != Self.defaultChunk }

    public static let defaults = SessionSettings(
        monkeys: 1, interval: .defaultTick, alphabet: .lowercaseLatin, target: TargetMatcher(target: ""))

    public init(
        monkeys: Int, interval: Interval, alphabet: Alphabet, target: TargetMatcher, seed: TypingSeed? = nil,
        corpus: String = "", chunk: Int = SessionSettings.defaultChunk
    ) {
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.target = target
        self.seed = seed
        self.corpus = corpus
        self.chunk = chunk
    }
}

/// What `seed=` sets: a seed, or (empty) fresh randomness again.
public enum SeedSetting: Sendable, Equatable {
    case seed(TypingSeed)
    case fresh

    /// The value as the protocol writes it.
    public var text: String {
        switch self {
        case .seed(let seed): seed.description
        case .fresh: ""
        }
    }
}

/// What `corpus=` sets: a corpus by name as the request gave it, the same
/// with its files read by the daemon (the engine reads no file), or
/// (empty) a plain session again; or the corpus read and indexed already
/// (`BuiltCorpus`), away from the owner of state.
public enum CorpusSetting: Sendable, Equatable {
    case named(String)
    case loaded(CorpusSource)
    case built(BuiltCorpus)
    case plain

    /// The corpus's name; empty for a plain session.
    public var name: String {
        switch self {
        case .named(let name): name
        case .loaded(let source): source.name
        case .built(let built): built.run.source.name
        case .plain: ""
        }
    }
}

/// A change to some of a session's settings, already validated.
public struct SettingsChange: Sendable, Equatable {
    public var monkeys: Int?
    public var interval: Interval?
    public var alphabet: Alphabet?
    public var target: String?
    public var seed: SeedSetting?
    public var corpus: CorpusSetting?
    public var chunk: Int?

    public init(
        monkeys: Int? = nil, interval: Interval? = nil, alphabet: Alphabet? = nil, target: String? = nil,
        seed: SeedSetting? = nil, corpus: CorpusSetting? = nil, chunk: Int? = nil
    ) {
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.target = target
        self.seed = seed
        self.corpus = corpus
        self.chunk = chunk
    }

    public var isEmpty: Bool {
        monkeys == nil && interval == nil && alphabet == nil && target == nil && seed == nil && corpus == nil
            && chunk == nil
    }

    /// Whether it changes what a corpus session covers: a corpus, a chunk
    /// or an alphabet (coverage then starts afresh), or a target (which
    /// makes the session plain).
    public var touchesCorpus: Bool { corpus != nil || chunk != nil || alphabet != nil || target != nil }
}
