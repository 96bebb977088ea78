/// Which characters of a corpus are covered: one bit per character of the
/// whole corpus (works one after the other, as in `Corpus`), with the
/// figures STATUS shows kept up to date as chunks are covered, so that no
/// question costs a scan. Owned by the one owner of a session's state;
/// typing threads only find chunks (`ChunkIndex.scan`) and hand them over.
///
/// A window that occurs in the corpus covers the K characters at every
/// place where its chunk occurs, in every work; a character stays covered
/// until coverage starts afresh (a new `Coverage`).
public struct Coverage: Sendable, Equatable {
    /// K, the chunk length.
    public let chunkLength: Int
    /// C, the characters of all works.
    public let characterCount: Int
    /// Where each work starts, in corpus order, and its characters.
    let workStarts: [Int]
    let workCounts: [Int]
    /// Bit p % 64 of word p / 64: character p is covered.
    private(set) var words: [UInt64]
    /// X, the characters covered.
    public private(set) var coveredCount = 0
    /// Covered characters of each work.
    public private(set) var workCovered: [Int]
    /// Works whose every character is covered.
    public private(set) var completeWorks = 0
    /// R, the longest run of consecutive covered characters within one work.
    public private(set) var longestRun = 0
    /// The first work, in corpus order, holding a run of `longestRun`; nil while it is 0.
    public private(set) var longestRunWork: Int?
    /// Z, the windows typed since coverage started afresh (`addWindows`).
    public private(set) var windows: UInt64 = 0

    /// Nothing covered yet, for `corpus`'s works and chunks of `chunkLength`.
    public init(corpus: Corpus, chunkLength: Int) {
        self.chunkLength = chunkLength
        characterCount = corpus.characterCount
        workStarts = corpus.workStarts
        workCounts = corpus.works.map(\.count)
        words = [UInt64](repeating: 0, count: (corpus.characterCount + 63) / 64)
        workCovered = [Int](repeating: 0, count: corpus.works.count)
    }

    /// Coverage as saved: the bits of `words` (one per character, as
    /// `words` holds them; bits past the last character must be clear)
    /// and the windows typed, every figure counted again from them. Nil
    /// when `words` is not one bit per character.
    init?(corpus: Corpus, chunkLength: Int, words: [UInt64], windows: UInt64) {
        self.init(corpus: corpus, chunkLength: chunkLength)
        guard words.count == self.words.count else { return nil }
        if characterCount % 64 != 0, let last = words.last, last >> UInt64(characterCount % 64) != 0 { return nil }
        self.words = words
        self.windows = windows
        coveredCount = words.reduce(0) { $0 + $1.nonzeroBitCount }
        for work in 0..<workCount {
            var covered = 0
            for segment in segments(ofWork: work) where segment.isCovered {
                covered += segment.length
                if segment.length > longestRun {
                    longestRun = segment.length
                    longestRunWork = work
                }
            }
            workCovered[work] = covered
            if covered == workCounts[work] { completeWorks += 1 }
        }
    }

    /// The bits, one per character: for the coverage file and the bitmap lines.
    public var bitWords: [UInt64] { words }

    /// Nothing covered yet, for the index's corpus and chunk length.
    public init(index: ChunkIndex) {
        self.init(corpus: index.corpus, chunkLength: index.chunkLength)
    }

    /// X/C, the fraction covered.
    public var fraction: Double { characterCount == 0 ? 0 : Double(coveredCount) / Double(characterCount) }

    /// Whether character `position` of the corpus is covered.
    public func isCovered(_ position: Int) -> Bool {
        words[position >> 6] >> UInt64(position & 63) & 1 != 0
    }

    /// Counts windows typed (STATUS `windows`, the Z of the expected coverage).
    public mutating func addWindows(_ count: UInt64) {
        windows &+= count
    }

    /// Covers every occurrence of `chunk` (found by `index.scan` in the
    /// index this coverage was made for) and answers how many characters
    /// were covered that were not before: an entry is a hit when its
    /// windows' sum is above zero. Appends to `completed` each work that
    /// this made complete.
    public mutating func cover(_ chunk: ChunkID, in index: ChunkIndex, completed: inout [Int]) -> Int {
        var newlyCovered = 0
        index.forEachOccurrence(of: chunk) { position in
            newlyCovered += cover(position..<(position + chunkLength), completed: &completed)
        }
        return newlyCovered
    }

    /// Covers the characters of `range`, which lie within one work.
    mutating func cover(_ range: Range<Int>, completed: inout [Int]) -> Int {
        var added = 0
        var position = range.lowerBound
        while position < range.upperBound {
            let word = position >> 6
            let low = position & 63
            let width = min(64 - low, range.upperBound - position)
            let mask = (width == 64 ? UInt64.max : (1 << UInt64(width)) - 1) << UInt64(low)
            added += (mask & ~words[word]).nonzeroBitCount
            words[word] |= mask
            position += width
        }
        guard added > 0 else { return 0 }
        let work = self.work(containing: range.lowerBound)
        coveredCount += added
        workCovered[work] += added
        if workCovered[work] == workCounts[work] {
            completeWorks += 1
            completed.append(work)
        }
        // Runs only grow, and a longer one holds what was just covered.
        let run = runLength(around: range, in: work)
        if run > longestRun || (run == longestRun && work < longestRunWork ?? Int.max) {
            longestRun = run
            longestRunWork = work
        }
        return added
    }

    /// The index of the work whose characters include `position`.
    func work(containing position: Int) -> Int {
        Corpus.work(containing: position, starts: workStarts)
    }

    /// The length of the run of covered characters that holds `range`
    /// (all covered), within work `work`.
    private func runLength(around range: Range<Int>, in work: Int) -> Int {
        let start = workStarts[work]
        let end = start + workCounts[work]
        var left = range.lowerBound
        while left > start {
            // The covered bits just below `left` in its word, or the word below.
            let position = left - 1
            let word = words[position >> 6]
            let below = ~word << UInt64(63 - (position & 63))
            let covered = below == 0 ? (position & 63) + 1 : below.leadingZeroBitCount
            left -= covered
            if below != 0 { break }
        }
        var right = range.upperBound
        while right < end {
            let word = words[right >> 6]
            let above = ~word >> UInt64(right & 63)
            let covered = above == 0 ? 64 - (right & 63) : above.trailingZeroBitCount
            right += covered
            if above != 0 { break }
        }
        return min(right, end) - max(left, start)
    }

    /// One work's figures, as `COVERAGE` writes them.
    public struct WorkFigures: Sendable, Equatable {
        public let characters: Int
        public let covered: Int
        public var isComplete: Bool { covered == characters }
        public var fraction: Double { Double(covered) / Double(characters) }
    }

    public func figures(ofWork work: Int) -> WorkFigures {
        WorkFigures(characters: workCounts[work], covered: workCovered[work])
    }

    /// The number of works.
    public var workCount: Int { workStarts.count }
}
