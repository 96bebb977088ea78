/// A corpus session's experiment: its own copy of the works (so that later
/// edits of the files change nothing), normalised for its alphabet, the
/// index of its chunks, the expected coverage and the coverage so far.
/// Owned by the session's slot in the engine; the index is shared with
/// whoever scans typed text (`ChunkIndex` is immutable and `Sendable`).
public struct CorpusRun: Sendable {
    /// The works as read when `corpus=` was set: a new alphabet or chunk
    /// is normalised from this copy.
    public let source: CorpusSource
    public let index: ChunkIndex
    public let expected: ExpectedCoverage
    /// The experiment's identity: the normalised corpus and the chunk length.
    public let digest: CorpusDigest
    public private(set) var coverage: Coverage
    /// The whole percent of coverage the last `coverage` event announced.
    public private(set) var announcedPercent: Int

    /// Normalises `source` for `alphabet` and indexes its chunks of
    /// `chunk` characters; nothing covered yet. Pure, but not quick: about
    /// half a second for the works of Shakespeare.
    public init(source: CorpusSource, alphabet: Alphabet, chunk: Int, limits: CorpusLimits) throws(CorpusError) {
        let corpus = try Corpus(source: source, alphabet: alphabet, limits: limits)
        self.source = source
        index = ChunkIndex(corpus: corpus, chunkLength: chunk)
        expected = ExpectedCoverage(index: index)
        digest = CorpusDigest(corpus: corpus, chunkLength: chunk)
        coverage = Coverage(index: index)
        announcedPercent = 0
    }

    /// The corpus as normalised.
    public var corpus: Corpus { index.corpus }

    /// The same corpus with coverage restored (from the coverage file).
    public func restoring(_ saved: Coverage) -> CorpusRun {
        var run = self
        run.coverage = saved
        run.announcedPercent = Self.wholePercent(saved)
        return run
    }

    /// Nothing covered: coverage starts afresh (CLEAR).
    public mutating func restart() {
        coverage = Coverage(index: index)
        announcedPercent = 0
    }

    /// What covering one entry did.
    public struct Covering: Sendable, Equatable {
        /// Characters covered that were not before: the entry is a hit when above 0.
        public var newlyCovered = 0
        /// Works it made complete, by index.
        public var completed: [Int] = []
        /// A whole percent of the corpus reached for the first time.
        public var percent: Int?
    }

    /// Covers what one entry of `characters` characters found: `chunks`,
    /// the chunks of its windows that occur in the corpus (as
    /// `ChunkIndex.scan` finds them, here or on a typing thread). The one
    /// place where typed windows become coverage.
    public mutating func cover(_ chunks: some Sequence<ChunkID>, characters: Int) -> Covering {
        var covering = Covering()
        coverage.addWindows(UInt64(max(0, characters - index.chunkLength + 1)))
        for chunk in chunks {
            covering.newlyCovered += coverage.cover(chunk, in: index, completed: &covering.completed)
        }
        if covering.newlyCovered > 0 {
            let percent = Self.wholePercent(coverage)
            if percent > announcedPercent {
                announcedPercent = percent
                covering.percent = percent
            }
        }
        return covering
    }

    /// Scans one entry's text and covers what it found.
    public mutating func cover(text: String, characters: Int) -> Covering {
        var chunks: [ChunkID] = []
        var text = text
        text.withUTF8 { index.scan($0, into: &chunks) }
        return cover(chunks, characters: characters)
    }

    /// ⌊100 X / C⌋.
    static func wholePercent(_ coverage: Coverage) -> Int {
        coverage.characterCount == 0 ? 0 : coverage.coveredCount * 100 / coverage.characterCount
    }
}
