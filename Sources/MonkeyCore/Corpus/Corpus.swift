/// A corpus normalised for one alphabet: its works' characters as symbols
/// (see `CorpusAlphabet`), one after the other in work order, so that a
/// character has one position in the whole corpus. What coverage counts,
/// what the chunk index finds and what `COVERAGE` shows.
public struct Corpus: Sendable {
    /// One work: its name and where its characters lie.
    public struct Work: Sendable, Equatable {
        public let name: String
        /// The file it came from, for messages.
        public let file: String
        /// The position of its first character in the corpus.
        public let start: Int
        /// Its number of characters (at least one).
        public let count: Int

        public var range: Range<Int> { start..<(start + count) }
    }

    /// The corpus's name (its directory in `corpus_dir`).
    public let name: String
    public let alphabet: CorpusAlphabet
    public let normalisation: Normalisation
    public let works: [Work]
    /// Each work's `start`, for finding the work of a position.
    let workStarts: [Int]
    /// Every work's characters as symbols, in work order.
    public let symbols: [UInt8]
    /// The normalised corpus's size in bytes of UTF-8, which
    /// `max_corpus_bytes` bounds.
    public let byteCount: Int

    /// Normalises `source` for `alphabet` (see `Normalisation`). Throws
    /// `emptyWork` for a work with no character left, `tooLarge` when the
    /// result is larger than `limits.maximumCorpusBytes`.
    public init(source: CorpusSource, alphabet: Alphabet, limits: CorpusLimits) throws(CorpusError) {
        let corpusAlphabet = try CorpusAlphabet(alphabet)
        let normalisation = Normalisation(alphabet: corpusAlphabet)
        var symbols: [UInt8] = []
        var works: [Work] = []
        var byteCount = 0
        for work in source.works {
            let start = symbols.count
            work.text.withUnsafeBufferPointer { normalisation.append(normalising: $0, to: &symbols) }
            guard symbols.count > start else { throw .emptyWork(file: work.file) }
            if corpusAlphabet.isSingleByte {
                byteCount += symbols.count - start
            } else {
                for symbol in symbols[start...] { byteCount += corpusAlphabet.utf8Length(of: symbol) }
            }
            guard byteCount <= limits.maximumCorpusBytes else { throw .tooLarge(limit: limits.maximumCorpusBytes) }
            works.append(Work(name: work.name, file: work.file, start: start, count: symbols.count - start))
        }
        self.name = source.name
        self.alphabet = corpusAlphabet
        self.normalisation = normalisation
        self.works = works
        workStarts = works.map(\.start)
        self.symbols = symbols
        self.byteCount = byteCount
    }

    /// C, the number of characters of all works.
    public var characterCount: Int { symbols.count }

    /// The index of the work whose characters include `position`.
    public func work(containing position: Int) -> Int {
        Self.work(containing: position, starts: workStarts)
    }

    /// The last of `starts` (increasing, the first 0) at or before `position`: its work.
    static func work(containing position: Int, starts: [Int]) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The index of the work named `name`, if there is one.
    public func work(named name: String) -> Int? {
        works.firstIndex { $0.name == name }
    }

    /// The text of the characters at `positions` of the corpus.
    public func text(_ positions: Range<Int>) -> String {
        alphabet.text(of: symbols[positions])
    }
}
