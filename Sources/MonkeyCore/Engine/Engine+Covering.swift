/// Typing of a corpus session: what its batches cover decides its hits.
extension Engine {
    /// Covers, in id order, the chunks of a corpus session's batch
    /// (`CorpusRun.cover`), which decides its hits (an entry that covered a
    /// character not covered before): their ids, in order. Events in id
    /// order: a `hit` for each of the first `hitTextLimit` hits of the batch
    /// (the others counted), with the works each completed and each new
    /// whole percent. Nil when the session has no corpus.
    static func cover(
        _ batch: TypedBatch, _ matches: CorpusMatches, into scheduled: inout ScheduledSession,
        events: inout [Event]
    ) -> [UInt64]? {
        guard var run = scheduled.corpus.take() else { return nil }
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
        return hitIDs
    }
}
