/// What a session with a target can expect: `p`, the probability that one
/// entry contains the target, and what follows from it (monkeyctl(1), THE ODDS).
///
/// Each of an entry's N characters (N = monkeys) is drawn uniformly and
/// independently from the alphabet's k characters, so `p` depends only on
/// the target, N and the alphabet, and entries are independent trials: the
/// number of entries up to a hit is geometric with mean 1/p.
///
/// Depends on the target, the monkeys and the alphabet, not on the
/// interval. Computed once when one of those changes (START, SET, a restore
/// or a reload), never per tick: O(N·m) for a target of m characters, about
/// 11 ms in a release build at the limits (m = 1024, N = 10,000, k = 256).
/// `figures(interval:typed:)` is then cheap enough for every STATUS line.
/// The caller validates the limits; `Odds` computes for any sizes.
public struct Odds: Sendable, Equatable {
    /// p, exact up to rounding (relative error near 1e-12); zero when the
    /// target can never be typed.
    public let probability: WideNumber
    /// 1 − p, computed on its own, so it keeps its precision when p is
    /// close to 1 (1 − p = (25/26)^10000 ≈ 5e-171 for the target "a",
    /// 10,000 monkeys and 26 letters).
    public let complement: WideNumber
    /// Why p is zero, if it is.
    public let impossibility: Impossibility?
    /// 1/p, the mean number of entries from one hit to the next; nil when p = 0.
    public let expectedEntries: WideNumber?
    /// −ln(1 − p), so that the chance of a hit in n entries is 1 − e^(−n·rate); +∞ when p = 1.
    private let missRate: WideNumber
    private let pHitText: String
    private let expectedEntriesText: String

    /// The odds of hitting `target` with entries of `monkeys` characters
    /// drawn from `alphabet`; nil for an empty target, which has no odds
    /// (STATUS shows no odds fields for it).
    public init?(target: String, monkeys: Int, alphabet: Alphabet) {
        guard !target.isEmpty else { return nil }
        precondition(monkeys >= 0, "a number of monkeys")
        if let impossibility = Impossibility(target: target, monkeys: monkeys, alphabet: alphabet) {
            self.init(probability: .zero, complement: .one, impossibility: impossibility)
            return
        }
        var index: [Unicode.Scalar: Int] = [:]
        for (position, scalar) in alphabet.text.unicodeScalars.enumerated() { index[scalar] = position }
        let letters = target.unicodeScalars.map { index[$0] ?? 0 }
        let automaton = HitAutomaton(target: letters, alphabetSize: alphabet.count)
        let (hit, miss) = automaton.probabilities(characters: monkeys)
        // 1 − p is exact enough by subtraction while p is not near 1.
        let complement = hit.doubleValue <= 0.5 ? WideNumber(1 - hit.doubleValue) : miss
        self.init(probability: hit, complement: complement, impossibility: nil)
    }

    private init(probability: WideNumber, complement: WideNumber, impossibility: Impossibility?) {
        self.probability = probability
        self.complement = complement
        self.impossibility = impossibility
        let p = probability.doubleValue
        if probability.isZero {
            missRate = .zero
        } else if complement.isZero {
            missRate = WideNumber(Double.infinity.nextDown)
        } else if p < 0x1p-60 {
            // −ln(1 − p) = p + p²/2 + …, and p² is below a Double's precision.
            missRate = probability
        } else if p <= 0.5 {
            missRate = WideNumber(-Elementary.log1p(-p))
        } else {
            missRate = WideNumber(-complement.naturalLogarithm)
        }
        expectedEntries = probability.isZero ? nil : probability.reciprocal
        pHitText = probability.formatted
        expectedEntriesText = expectedEntries?.formatted ?? Figures.never
    }

    /// Whether the target can be typed at all.
    public var isPossible: Bool { impossibility == nil }

    /// The figures of a STATUS line, for entries typed every `interval`
    /// and `typed` entries typed since the session was created or cleared.
    /// A flat-out session (interval 0) types `rate` entries a second: its
    /// wait is `never` while the rate is 0.
    public func figures(interval: Interval, typed: UInt64, rate: Double = 0) -> Figures {
        let seconds =
            interval.nanoseconds > 0
            ? WideNumber(Double(interval.nanoseconds) / 1e9) : rate > 0 && rate.isFinite ? WideNumber(1 / rate) : nil
        let expectedSeconds = seconds.flatMap { seconds in expectedEntries.map { $0 * seconds } }
        let chance = Self.chance(rate: missRate, trials: typed)
        return Figures(
            numbers: Figures.Numbers(
                pHit: probability, expectedEntries: expectedEntries, expectedSeconds: expectedSeconds,
                chance: chance),
            pHit: pHitText, expectedEntries: expectedEntriesText,
            expectedSeconds: expectedSeconds?.formatted ?? Figures.never, chance: chance.formatted)
    }

    /// 1 − (1 − p)^n = 1 − e^(−n·rate), without cancellation when n·p is
    /// small and without underflow when it is tiny.
    static func chance(rate: WideNumber, trials: UInt64) -> WideNumber {
        guard trials > 0, !rate.isZero else { return .zero }
        let exponent = rate * WideNumber(Double(trials))
        // Below 2^-30 the next term of the series, x²/2, is below 2^-31 of x.
        if exponent < WideNumber(0x1p-30) { return exponent }
        let x = exponent.doubleValue
        // e^-40 is below a Double's precision next to 1.
        if x > 40 { return .one }
        return WideNumber(-Elementary.expm1(-x))
    }
}
