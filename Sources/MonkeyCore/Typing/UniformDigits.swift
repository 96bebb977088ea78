/// Several exactly uniform, independent digits from one random word: how an
/// unseeded session types (a seeded one keeps the one-draw-per-character
/// function of `SeededTyping`, which never changes).
///
/// For a base k ≥ 2 and a word of w bits, take j digits per draw, with
/// N = k^j ≤ 2^w:
///
/// 1. Draw a word r. Lemire's test: if the low w bits of the 2w-bit product
///    r × N are below 2^w mod N, reject r and draw again. The accepted r map
///    onto v = floor(r × N / 2^w) so that every v in 0..<N has exactly
///    floor(2^w / N) preimages: v is exactly uniform.
/// 2. The j digits of v in base k, most significant first, are read off the
///    fraction r / 2^w: starting from x = r, each step takes the 2w-bit
///    product x × k; its high word is the next digit and its low word the new
///    x. (After i steps the digits read are floor(r × k^i / 2^w), so after j
///    steps they are v's.) A uniform v in 0..<k^j has independent uniform
///    digits, so the j characters are independent and uniform over the
///    alphabet: the odds of monkeyd(8) hold exactly.
///
/// When k is a power of two and k^j = 2^w, nothing is rejected (`span` is 0
/// then). j is chosen to draw the fewest words per digit, rejections
/// included: 1 / (j × (1 − (2^w mod N) / 2^w)). For 26 letters and 64-bit
/// words that is j = 13 (5.8 % of draws rejected, 0.082 draws a letter).
///
/// The typing kernel reads groups of g characters at a time as one digit of
/// base k^g (a table turns a group into its bytes): the same method over a
/// bigger base, so the same proof. 26 letters are read in pairs, base 676,
/// 6 digits a draw: 12 letters, 0.5 % of draws rejected. Generic over the word so that the tests
/// can check every word of a narrow width exhaustively with this very code.
public struct UniformDigits<Word: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable, Equatable
where Word.Magnitude == Word {
    /// k, at least 2.
    public let base: Word
    /// j.
    public let digitsPerDraw: Int
    /// N = k^j, or 0 when N = 2^w exactly.
    public let span: Word
    /// 2^w mod N: a draw whose product's low word is below it is rejected.
    public let threshold: Word

    /// The method for base `base` with the j that draws the fewest words per digit.
    public init(base: Word) {
        precondition(base >= 2, "one digit needs no draw")
        var best = UniformDigits(base: base, digitsPerDraw: 1)
        var power = base
        var digits = 1
        while true {
            let next = power.multipliedFullWidth(by: base)
            // Past 2^w; exactly 2^w (a power of two) is the last that fits.
            let isWhole = next.high == 1 && next.low == 0
            guard next.high == 0 || isWhole else { break }
            digits += 1
            let candidate = UniformDigits(base: base, digitsPerDraw: digits)
            if candidate.drawsPerDigit < best.drawsPerDigit { best = candidate }
            if isWhole { break }
            power = next.low
        }
        self = best
    }

    /// The method with j fixed (k^j must not exceed 2^w).
    public init(base: Word, digitsPerDraw: Int) {
        precondition(base >= 2 && digitsPerDraw >= 1, "base 2 or more, one digit or more")
        var span: Word = 1
        for step in 0..<digitsPerDraw {
            let next = span.multipliedFullWidth(by: base)
            let isWhole = next.high == 1 && next.low == 0 && step == digitsPerDraw - 1
            precondition(next.high == 0 || isWhole, "k^j exceeds the word")
            span = next.low
        }
        self.base = base
        self.digitsPerDraw = digitsPerDraw
        self.span = span
        // 2^w mod N, computed in w bits as (2^w − N) mod N.
        self.threshold = span == 0 ? 0 : (0 &- span) % span
    }

    /// Whether a draw is kept (step 1).
    @inline(__always)
    public func accepts(_ draw: Word) -> Bool {
        threshold == 0 || draw.multipliedFullWidth(by: span).low >= threshold
    }

    /// The next digit of the fraction `fraction` (step 2), which moves on.
    @inline(__always)
    public static func nextDigit(_ fraction: inout Word, base: Word) -> Word {
        let product = fraction.multipliedFullWidth(by: base)
        fraction = product.low
        return product.high
    }

    /// Words drawn per digit on average, rejections included.
    public var drawsPerDigit: Double {
        let rejected = Double(threshold) / (Double(Word.max) + 1)
        return 1 / (Double(digitsPerDraw) * (1 - rejected))
    }
}
