/// Reproducible typing: with a seed, an entry's text is a pure function of
/// the seed, the entry's id, the number of monkeys and the alphabet, so that
/// any entry can be typed again, on any machine, to check it
/// (`monkeyctl replay`). Within protocol 1 this never changes; monkeyd(8)
/// has the same description and test vectors.
///
/// All arithmetic is on unsigned 64-bit integers modulo 2^64; `×` below is
/// that product unless it says 128-bit.
///
/// 1. `mix(z)`, SplitMix64's finaliser:
///    `z ^= z >> 30; z ×= 0xbf58476d1ce4e5b9; z ^= z >> 27;
///    z ×= 0x94d049bb133111eb; z ^= z >> 31`.
/// 2. The entry's state: `mix(mix(seed) + id × 0x9e3779b97f4a7c15)`.
/// 3. The stream is wyrand started from that state: each draw first adds
///    `0xa0761d6478bd642f` to the state, then takes the 128-bit product of
///    the state and `state ^ 0xe7037ed1a0b428db` and returns its high 64 bits
///    xor its low 64 bits.
/// 4. Each of the `monkeys` characters, first to last, is the character at
///    index i of the alphabet, counted in Unicode scalars from 0 in the
///    order the alphabet was written, where i is drawn from k = the
///    alphabet's size without bias (Lemire's method): take a draw r and the
///    128-bit product r × k; while its low 64 bits are below
///    (2^64 − k) mod k, take a new draw and a new product; i is the
///    product's high 64 bits. (The rejection test is made only when the low
///    bits are below k, which gives the same result.)
/// 5. The text is the characters' UTF-8 bytes, one after another.
///
/// The stream is the daemon's own generator (`WyRand`), so typing with a
/// seed costs what typing without one does, plus one `mix` per entry
/// (`TypingSeed` keeps `mix(seed)`).
public enum SeededTyping {
    /// The text of entry `id` of a session with this seed.
    public static func text(seed: UInt64, id: UInt64, monkeys: Int, alphabet: Alphabet) -> String {
        TypingSeed(seed).text(ofEntry: id, monkeys: monkeys, alphabet: alphabet)
    }

    /// The entry's starting state, step 2 above.
    public static func state(seed: UInt64, id: UInt64) -> UInt64 {
        TypingSeed(seed).state(ofEntry: id)
    }

    /// SplitMix64's finaliser (Stafford's "Mix13"), step 1 above.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// A session's `seed=` setting, ready to type with: `mix(seed)` is worked
/// out once, so that each entry costs one `mix` and wyrand's own work
/// (see `SeededTyping` for the specification).
public struct TypingSeed: Sendable, Hashable, CustomStringConvertible {
    /// The seed as set, 0 to 2^64 − 1.
    public let value: UInt64
    private let mixed: UInt64

    public init(_ value: UInt64) {
        self.value = value
        self.mixed = SeededTyping.mix(value)
    }

    /// A seed written in decimal digits only (no sign, no blanks), from 0
    /// to 18446744073709551615; nil for anything else.
    public init?(parsing text: String) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt64(text) else {
            return nil
        }
        self.init(value)
    }

    /// The text of entry `id`.
    public func text(ofEntry id: UInt64, monkeys: Int, alphabet: Alphabet) -> String {
        var random = generator(forEntry: id)
        return alphabet.typeString(length: monkeys, using: &random)
    }

    /// The generator positioned to type entry `id`: steps 2 and 3 of the specification.
    public func generator(forEntry id: UInt64) -> WyRand {
        WyRand(seed: state(ofEntry: id))
    }

    /// The entry's starting state, step 2 of the specification.
    public func state(ofEntry id: UInt64) -> UInt64 {
        SeededTyping.mix(mixed &+ id &* 0x9e37_79b9_7f4a_7c15)
    }

    /// The seed in decimal, as STATUS shows it.
    public var description: String { String(value) }
}
