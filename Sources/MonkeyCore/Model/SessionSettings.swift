/// What a session types, how much and how often.
public struct SessionSettings: Sendable, Equatable {
    public var monkeys: Int
    public var interval: Interval
    public var alphabet: Alphabet
    public var target: TargetMatcher
    /// With a seed, each entry's text is a pure function of the seed and
    /// its id (see `SeededTyping`); without one, fresh randomness.
    public var seed: TypingSeed?

    public static let defaults = SessionSettings(
        monkeys: 1, interval: .defaultTick, alphabet: .lowercaseLatin, target: TargetMatcher(target: ""))

    public init(
        monkeys: Int, interval: Interval, alphabet: Alphabet, target: TargetMatcher, seed: TypingSeed? = nil
    ) {
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.target = target
        self.seed = seed
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

/// A change to some of a session's settings, already validated.
public struct SettingsChange: Sendable, Equatable {
    public var monkeys: Int?
    public var interval: Interval?
    public var alphabet: Alphabet?
    public var target: String?
    public var seed: SeedSetting?

    public init(
        monkeys: Int? = nil, interval: Interval? = nil, alphabet: Alphabet? = nil, target: String? = nil,
        seed: SeedSetting? = nil
    ) {
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.target = target
        self.seed = seed
    }

    public var isEmpty: Bool { monkeys == nil && interval == nil && alphabet == nil && target == nil && seed == nil }
}
