/// What a session types, how much and how often.
public struct SessionSettings: Sendable, Equatable {
    public var monkeys: Int
    public var interval: Interval
    public var alphabet: Alphabet
    public var target: TargetMatcher

    public static let defaults = SessionSettings(
        monkeys: 1, interval: .defaultTick, alphabet: .lowercaseLatin, target: TargetMatcher(target: ""))

    public init(monkeys: Int, interval: Interval, alphabet: Alphabet, target: TargetMatcher) {
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.target = target
    }
}

/// A change to some of a session's settings, already validated.
public struct SettingsChange: Sendable, Equatable {
    public var monkeys: Int?
    public var interval: Interval?
    public var alphabet: Alphabet?
    public var target: String?

    public init(monkeys: Int? = nil, interval: Interval? = nil, alphabet: Alphabet? = nil, target: String? = nil) {
        self.monkeys = monkeys
        self.interval = interval
        self.alphabet = alphabet
        self.target = target
    }

    public var isEmpty: Bool { monkeys == nil && interval == nil && alphabet == nil && target == nil }
}
