/// Bounds on everything that comes from outside (monkeyd.conf(5));
/// each is configurable in monkeyd.conf.
public struct Limits: Sendable, Equatable {
    public var maximumLineLength = 4096
    public var maximumMonkeys = 10_000
    public var maximumTargetBytes = 1024
    public var maximumAlphabet = 256
    public var maximumSessions = 10_000
    public var maximumClients = 256
    /// Entries each session keeps (retention).
    public var maximumEntries = 10_000
    /// Bytes of output queued for one connection before a follower skips
    /// entries and a LOG response waits for the client to read.
    public var maximumPendingOutput = 1 << 20
    public var shortestInterval = Interval.millisecond
    public var longestInterval = Interval.longestTick
    /// The largest normalised corpus a corpus session may cover (`max_corpus_bytes`).
    public var maximumCorpusBytes = CorpusLimits.defaultMaximumCorpusBytes

    /// What a corpus may be, from `maximumCorpusBytes`.
    public var corpus: CorpusLimits { CorpusLimits(maximumCorpusBytes: maximumCorpusBytes) }

    public init() {}
}
