/// Typing of a corpus session: what its batches cover decides its hits.
extension Engine {
    /// As `merge`, for a corpus session: its texts' chunks covered in id
    /// order (`CorpusRun.cover`), which decides its hits (an entry that
    /// covered a character not covered before), then the batch taken in
    /// with them. Events in id order: a `hit` for each of the first
    /// `hitTextLimit` hits of the batch (the others counted), with the
    /// works each completed and each new whole percent.
    static func mergeCovering(
        _ batch: TypedBatch, _ matches: CorpusMatches, into scheduled: inout ScheduledSession, now: UInt64,
        typed: inout [TypedEntry], events: inout [Event], isForStore: Bool
    ) {
        guard var run = scheduled.corpus.take() else { return }
        let name = scheduled.session.name
        let characters = scheduled.session.settings.monkeys
        let numberOfFirst = scheduled.session.nextNumber
        var hitIDs: [UInt64] = []
        var reported = 0
        for text in 0..<min(batch.count, matches.textCount) {
            let covering = run.cover(matches.chunks(ofText: text), characters: characters)
            guard covering.newlyCovered > 0 else { continue }
            let id = batch.firstID + UInt64(text)
            hitIDs.append(id)
            var said = covering
            if reported < hitTextLimit {
                reported += 1
            } else {
                // Counted, not said: the works and percents it reached still are.
                guard !covering.completed.isEmpty || covering.percent != nil else { continue }
                said.newlyCovered = 0
            }
            let entry = Entry(id: id, number: numberOfFirst + UInt64(text), text: "", isHit: true)
            appendEvents(of: said, entry: entry, session: name, corpus: run.corpus, to: &events)
        }
        scheduled.corpus = run
        let epoch = scheduled.session.epoch
        let isFollowed = scheduled.isFollowed
        let attentionID = scheduled.attentionID
        // Only the newest entry may need the store's bookkeeping (see `merge`).
        let lastKeptID = batch.firstKeptID &+ UInt64(max(batch.kept.count - 1, 0))
        scheduled.session.absorb(batch, coverageHits: hitIDs) { entry in
            var typedEntry = TypedEntry(
                session: name, epoch: epoch, entry: entry, isFollowed: isFollowed,
                needsAttention: entry.id == lastKeptID && entry.id >= attentionID)
            typedEntry.isForStore = isForStore
            typed.append(typedEntry)
        }
        scheduled.entriesTyped &+= UInt64(batch.count)
        scheduled.rate.note(scheduled.entriesTyped, at: now)
        scheduled.charactersTyped &+= batch.charactersTyped
        scheduled.hitsTyped &+= UInt64(hitIDs.count)
    }
}
