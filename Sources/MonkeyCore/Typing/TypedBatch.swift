/// What a typing thread answers for a `TypingJob`, for the owner to merge.
public struct TypedBatch: Sendable {
    /// The job's first id and number of entries.
    public let firstID: UInt64
    public let count: Int
    /// The texts of the newest `min(keep, count)` entries, oldest first:
    /// text i is entry `firstKeptID + i`.
    public let kept: TypedTexts
    /// The same texts as `String`s, made where the batch is typed (a
    /// typing thread): made by the owner at the merge, a megabyte of kept
    /// texts a batch held every request behind it for milliseconds.
    let keptStrings: [String]
    /// The ids of the kept entries that are hits, increasing.
    public let keptHitIDs: [UInt64]
    /// Every hit of the batch, kept or not.
    public let hitCount: Int
    /// The first `hitTextLimit` hits of the batch, kept or not, with their
    /// texts (`hitTexts`, in the same order), for `hit` events.
    public let reportedHitIDs: [UInt64]
    public let hitTexts: TypedTexts
    /// Best progress after the batch, in characters.
    public let bestLength: Int
    /// Each entry that raised best progress, with the best it reached, in
    /// id order (one `best` event each): at most the target's length.
    public let improvements: [BestProgress]
    /// Characters typed: `count × monkeys`.
    public let charactersTyped: UInt64
    /// The random state after the batch (the job's own for a seeded one).
    public let random: WyRand

    init(
        job: TypingJob, kept: TypedTexts, keptHitIDs: [UInt64], hitCount: Int, reportedHitIDs: [UInt64],
        hitTexts: TypedTexts, bestLength: Int, improvements: [BestProgress], random: WyRand
    ) {
        firstID = job.firstID
        count = job.count
        self.kept = kept
        keptStrings = (0..<kept.count).map { kept.string(at: $0) }
        self.keptHitIDs = keptHitIDs
        self.hitCount = hitCount
        self.reportedHitIDs = reportedHitIDs
        self.hitTexts = hitTexts
        self.bestLength = bestLength
        self.improvements = improvements
        charactersTyped = UInt64(job.count) * UInt64(job.monkeys)
        self.random = random
    }

    /// The id of the first kept entry.
    public var firstKeptID: UInt64 { firstID + UInt64(count - kept.count) }

    /// Hits not reported with their texts.
    public var unreportedHitCount: Int { hitCount - reportedHitIDs.count }

    /// Kept entry `index` as the log holds it, given the number of the
    /// batch's first entry (the owner's next number when the job was made).
    /// `hitIDs` (increasing), when given, say which entries are hits in
    /// place of the target's.
    public func keptEntry(_ index: Int, numberOfFirst: UInt64, hitIDs: [UInt64]? = nil) -> Entry {
        let offset = UInt64(count - kept.count + index)
        let id = firstID + offset
        return Entry(
            id: id, number: numberOfFirst + offset, text: keptStrings[index],
            isHit: Self.contains(hitIDs ?? keptHitIDs, id))
    }

    private static func contains(_ sorted: [UInt64], _ id: UInt64) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == id
    }
}

/// An entry that raised a session's best progress, and to how much.
public struct BestProgress: Sendable, Equatable {
    public let id: UInt64
    /// In characters.
    public let length: Int

    public init(id: UInt64, length: Int) {
        self.id = id
        self.length = length
    }
}
