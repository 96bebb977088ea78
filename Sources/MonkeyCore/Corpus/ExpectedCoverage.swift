/// The mean coverage of uniformly random typing after Z windows:
///
///     E(Z) = (1/C) Σᵢ (1 − (1 − dᵢ/k^K)^Z)
///
/// where dᵢ is the number of distinct K-character strings among the
/// windows of character i's work that contain character i (at most K; 0 in
/// a work shorter than K), k the alphabet's size and C the corpus's
/// characters. Each typed window is taken as an independent uniform draw
/// from the k^K strings, so character i stays uncovered after Z windows
/// with probability (1 − dᵢ/k^K)^Z.
///
/// Only the histogram of dᵢ matters (at most K + 1 values), computed once
/// per corpus, alphabet and chunk length; an evaluation is then K + 1
/// terms, each −expm1(Z·log1p(−dᵢ/k^K)), accurate for a tiny dᵢ/k^K
/// (26^-9 is 1.8e-13) and any Z.
public struct ExpectedCoverage: Sendable, Equatable {
    /// C.
    public let characterCount: Int
    /// k^K, as a Double (256^64 = 2^512 is within its range).
    public let strings: Double
    /// `histogram[d]`: the characters whose dᵢ is d, for d = 0 ... K.
    public let histogram: [Int]
    /// The distinct chunks of the corpus.
    public let distinctChunks: Int

    /// The histogram of `index`'s corpus: O(C·K).
    public init(index: ChunkIndex) {
        let chunkLength = index.chunkLength
        var histogram = [Int](repeating: 0, count: chunkLength + 1)
        index.nextOccurrence.withUnsafeBufferPointer { next in
            for work in index.corpus.works {
                guard work.count >= chunkLength else {
                    histogram[0] += work.count
                    continue
                }
                let lastWindow = work.start + work.count - chunkLength
                for position in work.range {
                    // The windows holding `position`; a window counts when its
                    // chunk does not occur again before the last of them, so
                    // that each distinct chunk counts once.
                    let first = max(work.start, position - chunkLength + 1)
                    let last = min(position, lastWindow)
                    var distinct = 0
                    for window in first...last where Int(next[window]) > last {
                        distinct += 1
                    }
                    histogram[distinct] += 1
                }
            }
        }
        var strings = 1.0
        for _ in 0..<chunkLength { strings *= Double(index.corpus.alphabet.count) }
        self.init(
            characterCount: index.corpus.characterCount, strings: strings, histogram: histogram,
            distinctChunks: index.distinctChunks)
    }

    /// From its parts (for tests, and for a histogram computed elsewhere).
    public init(characterCount: Int, strings: Double, histogram: [Int], distinctChunks: Int) {
        self.characterCount = characterCount
        self.strings = strings
        self.histogram = histogram
        self.distinctChunks = distinctChunks
    }

    /// E(Z), the mean fraction covered after `windows` windows.
    public func coverage(afterWindows windows: Double) -> Double {
        guard characterCount > 0 else { return 0 }
        var sum = 0.0
        for (distinct, characters) in histogram.enumerated() where characters > 0 && distinct > 0 {
            sum += Double(characters) * Self.covered(probability: Double(distinct) / strings, windows: windows)
        }
        return min(1, sum / Double(characterCount))
    }

    /// 1 − E(Z), computed as its own sum, so that it keeps its precision
    /// when E(Z) is near 1 (the inverse solves for it).
    public func uncovered(afterWindows windows: Double) -> Double {
        guard characterCount > 0 else { return 1 }
        var sum = Double(histogram[0])
        for (distinct, characters) in histogram.enumerated() where characters > 0 && distinct > 0 {
            sum += Double(characters) * Self.missed(probability: Double(distinct) / strings, windows: windows)
        }
        return sum / Double(characterCount)
    }

    /// 1 − (1 − p)^z.
    static func covered(probability p: Double, windows z: Double) -> Double {
        guard z > 0 else { return 0 }
        if p >= 1 { return 1 }
        return -Elementary.expm1(z * Elementary.log1p(-p))
    }

    /// (1 − p)^z.
    static func missed(probability p: Double, windows z: Double) -> Double {
        guard z > 0 else { return 1 }
        if p >= 1 { return 0 }
        return Elementary.exp(z * Elementary.log1p(-p))
    }

    /// The fewest windows Z at which E(Z) reaches `fraction` (0 < fraction
    /// < 1; 99.99 % is 0.9999), or nil when it never does: E(Z) tends to
    /// the fraction of characters in works of at least K characters, and
    /// reaches 1 only in the limit.
    public func windows(toReach fraction: Double) -> Double? {
        guard fraction > 0 else { return 0 }
        let target = 1 - fraction
        // E is increasing in Z; its limit is 1 − histogram[0]/C.
        guard fraction < 1, Double(histogram[0]) / Double(max(characterCount, 1)) < target else { return nil }
        var low = 0.0
        var high = 1.0
        while uncovered(afterWindows: high) > target {
            low = high
            high *= 2
            guard high.isFinite, high < 0x1p1000 else { return nil }
        }
        // Bisection: to the whole number where low misses and high reaches,
        // or, past 2^53 windows, to 15 significant digits.
        while high - low > (high < 0x1p53 ? 1 : high * 0x1p-50) {
            var middle = low + (high - low) / 2
            if high < 0x1p53 { middle = Elementary.floor(middle) }
            if uncovered(afterWindows: middle) > target { low = middle } else { high = middle }
        }
        return high
    }

    /// A fraction as STATUS writes it: 4 significant digits (`WideNumber.formatted`).
    public static func text(ofFraction fraction: Double) -> String {
        WideNumber(max(0, fraction)).formatted
    }
}
