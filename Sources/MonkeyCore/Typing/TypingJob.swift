/// One batch of a session's entries for a typing thread: the settings they
/// are typed with and what the owner of the session knows before them.
///
/// The owner hands it out and merges the `TypedBatch` that comes back in
/// id order: the entries' ids are `firstID ..< firstID + count`, and the
/// next batch of the same session starts from the best progress (and, for
/// an unseeded session, the random state) this one answers.
public struct TypingJob: Sendable {
    /// Characters in each entry (the session's monkeys).
    public var monkeys: Int
    public var alphabet: TypingAlphabet
    /// The session's target for this alphabet (may be empty).
    public var target: TypingTarget
    /// With a seed each text is `SeededTyping.text` of its id; `random` is
    /// then not used.
    public var seed: TypingSeed?
    /// The id of the batch's first entry.
    public var firstID: UInt64
    /// How many entries to type.
    public var count: Int
    /// How many of the newest entries' texts come back (the session's
    /// retention): older ones are typed and checked for hits and best
    /// progress, but their texts are not kept. The kept texts take one
    /// buffer of `min(keep, count) × monkeys` characters: size batches by it.
    public var keep: Int
    /// Best progress before the batch, in characters.
    public var bestLength: Int
    /// The random state an unseeded batch types from. Batches typed at the
    /// same time need states of their own (for example each
    /// `WyRand(seed: owner.next())`); one typed after another may go on
    /// from the state the last one answered.
    public var random: WyRand
    /// The most hits whose texts come back beyond the kept ones (for `hit`
    /// events); the rest are only counted.
    public var hitTextLimit: Int

    public init(
        monkeys: Int, alphabet: TypingAlphabet, target: TypingTarget, seed: TypingSeed?, firstID: UInt64,
        count: Int, keep: Int, bestLength: Int, random: WyRand, hitTextLimit: Int
    ) {
        precondition(monkeys >= 0 && count >= 0 && keep >= 0 && hitTextLimit >= 0, "counts are not negative")
        self.monkeys = monkeys
        self.alphabet = alphabet
        self.target = target
        self.seed = seed
        self.firstID = firstID
        self.count = count
        self.keep = keep
        self.bestLength = bestLength
        self.random = random
        self.hitTextLimit = hitTextLimit
    }
}
