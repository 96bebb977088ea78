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
}
