/// The check of a corpus session's typing, run where the batch is typed
/// (a typing thread, or the owner for a timed session): every text lent by
/// the `Typist` is scanned for the corpus's chunks, and what it holds is
/// kept per text for the owner, which covers it in id order
/// (`CorpusRun.cover`).
public struct CorpusScanner: TypedTextScanner {
    public let index: ChunkIndex
    private var chunks: [ChunkID] = []
    private var ends: [Int] = []

    public init(index: ChunkIndex, texts: Int) {
        self.index = index
        ends.reserveCapacity(texts)
    }

    public mutating func scan(_ text: TypedText) {
        index.scan(text.bytes, into: &chunks)
        ends.append(chunks.count)
    }

    /// What the texts held, in the order they were lent.
    public var matches: CorpusMatches { CorpusMatches(chunks: chunks, ends: ends) }
}

/// The chunks found in each text of a batch, in id order.
public struct CorpusMatches: Sendable {
    let chunks: [ChunkID]
    /// Where each text's chunks end in `chunks`.
    let ends: [Int]

    /// Texts scanned.
    public var textCount: Int { ends.count }

    /// The chunks of the batch's text number `text`, counted from 0.
    public func chunks(ofText text: Int) -> ArraySlice<ChunkID> {
        chunks[(text == 0 ? 0 : ends[text - 1])..<ends[text]]
    }
}
