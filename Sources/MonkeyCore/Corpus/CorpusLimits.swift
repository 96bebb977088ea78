/// How large a corpus may be: `max_corpus_bytes` bounds the normalised
/// corpus, and four times that the files as read (the session's own copy,
/// which must be read whole before it can be normalised).
public struct CorpusLimits: Sendable, Equatable {
    /// `max_corpus_bytes`'s default: 64 MiB.
    public static let defaultMaximumCorpusBytes = 64 << 20
    /// A corpus's characters are numbered with 32 bits (the chunk index
    /// stores positions so), so no limit can reach past this.
    public static let largestCorpusBytes = Int(UInt32.max) - 1

    /// The largest normalised corpus, in bytes of UTF-8.
    public let maximumCorpusBytes: Int

    /// `maximumCorpusBytes` is clamped to 1 ... `largestCorpusBytes`.
    public init(maximumCorpusBytes: Int = CorpusLimits.defaultMaximumCorpusBytes) {
        self.maximumCorpusBytes = min(max(maximumCorpusBytes, 1), Self.largestCorpusBytes)
    }

    /// The largest total of the works' files as read: 4 × `maximumCorpusBytes`.
    public var maximumFileBytes: Int { maximumCorpusBytes.multipliedReportingOverflow(by: 4).partialValue }
}
