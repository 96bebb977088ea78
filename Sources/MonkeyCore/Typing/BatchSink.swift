/// What a batch found, gathered as its entries are typed: hits (all
/// counted, the first few with their texts) and each rise of best progress.
struct BatchSink {
    private let hitTextLimit: Int
    private var keptHitIDs: [UInt64] = []
    private var hitCount = 0
    private var reportedHitIDs: [UInt64] = []
    private var hitBytes: [UInt8] = []
    private var hitEnds: [Int] = []
    private var improvements: [BestProgress] = []
    var bestLength: Int

    init(job: TypingJob) {
        hitTextLimit = job.hitTextLimit
        bestLength = job.bestLength
    }

    mutating func hit(_ id: UInt64, text: UnsafeBufferPointer<UInt8>, isKept: Bool) {
        hitCount += 1
        if isKept { keptHitIDs.append(id) }
        guard reportedHitIDs.count < hitTextLimit else { return }
        reportedHitIDs.append(id)
        hitBytes.append(contentsOf: text)
        hitEnds.append(hitBytes.count)
    }

    mutating func improved(_ id: UInt64, to length: Int) {
        improvements.append(BestProgress(id: id, length: length))
    }

    func batch(job: TypingJob, kept: TypedTexts, random: WyRand) -> TypedBatch {
        TypedBatch(
            job: job, kept: kept, keptHitIDs: keptHitIDs, hitCount: hitCount, reportedHitIDs: reportedHitIDs,
            hitTexts: TypedTexts(bytes: hitBytes, ends: hitEnds), bestLength: bestLength,
            improvements: improvements, random: random)
    }
}
