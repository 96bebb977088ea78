import MonkeyCore
import Testing

@testable import MonkeyDaemon

/// What the storage thread is handed at a sync: one epoch per session, the
/// newest, so that a storm of CLEARs costs one fresh entries file per sync.
@Suite("Outbox")
struct OutboxTests {
    let kept: SessionName
    let gone: SessionName

    init() throws {
        kept = try #require(SessionName("kept"))
        gone = try #require(SessionName("gone"))
    }

    @Test func onlyTheNewestEpochOfEachSessionIsWritten() {
        var outbox = Outbox()
        for epoch in UInt64(1)...1000 { outbox.changeEpoch(of: kept, to: epoch) }
        #expect(outbox.epochChanges.count == 1)
        #expect(outbox.epochChanges[kept] == .some(1000))
        #expect(!outbox.isEmpty)
    }

    @Test func aSessionGoneStaysGoneAndOneRecreatedGetsItsNewEpoch() {
        var outbox = Outbox()
        outbox.changeEpoch(of: gone, to: 3)
        outbox.changeEpoch(of: gone, to: nil)
        outbox.changeEpoch(of: kept, to: 4)
        outbox.changeEpoch(of: kept, to: nil)
        outbox.changeEpoch(of: kept, to: 5)
        // A deletion is a key with no epoch, not a missing key.
        #expect(outbox.epochChanges.keys.contains(gone))
        #expect(outbox.epochChanges[gone] == .some(nil))
        #expect(outbox.epochChanges[kept] == .some(5))
    }

    /// A session compacting at every batch hands the sync one file, the
    /// newest of its epoch; another epoch's file stays beside it.
    @Test func onlyTheNewestEntriesFileOfAnEpochWaits() {
        var outbox = Outbox()
        var log = EntryLog(capacity: 10)
        for id in UInt64(1)...500 {
            let entry = Entry(id: id, number: id, text: "x", isHit: false)
            log.append(entry)
            outbox.replace(kept, epoch: 1, with: log, newest: entry)
        }
        var other = EntryLog(capacity: 10)
        let lone = Entry(id: 9, number: 9, text: "y", isHit: false)
        other.append(lone)
        outbox.replace(gone, epoch: 2, with: other, newest: lone)
        outbox.replace(kept, epoch: 3, with: other, newest: Entry(id: 501, number: 1, text: "z", isHit: false))
        #expect(outbox.replacements.map(\.lastID) == [500, 9, 501])
        #expect(outbox.replacements.map(\.epoch) == [1, 2, 3])
        #expect(outbox.replacementBytes == outbox.replacements.map(\.size).reduce(0, +), "what waits is counted once")
        let newest = outbox.replacements[0]
        #expect(
            newest.file == EntryFile.encode((0..<log.count).lazy.map { log[$0] }, epoch: 1),
            "the file is the log as it was at the newest compaction")
    }
}
