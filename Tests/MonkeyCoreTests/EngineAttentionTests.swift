import Testing

@testable import MonkeyCore

/// The store sees the entries it asks for with their session's bookkeeping
/// (`TypedEntry.needsAttention`); the others it records in bulk, so that
/// most ticks never reach a session's bookkeeping.
@Suite("Entries the store sees with their session")
struct EngineAttentionTests {
    /// Session "s" (100 ms interval) typing on a `TestStore`.
    struct Typing {
        let store = TestStore()
        var harness: Harness
        var now: UInt64 = 0

        /// Starts "s"; the store skips `unseen` entries after each it sees.
        init(unseen: UInt64, keepsEntries: Bool = true) throws {
            store.entriesUnseen = unseen
            store.keepsEntries = keepsEntries
            harness = Harness(store: store)
            try harness.expectOK("START s")
        }

        /// Ticks through `count` more intervals.
        mutating func type(_ count: Int) {
            for _ in 0..<count {
                now += ms(100)
                _ = harness.tick(now: now)
            }
        }
    }

    @Test func theStoreSeesTheEntriesItAsksForAndRecordsTheRest() throws {
        var typing = try Typing(unseen: 4)
        typing.type(12)
        #expect(typing.store.appended.map(\.id) == [1, 6, 11])
        #expect(typing.store.recorded.map(\.id) == [2, 3, 4, 5, 7, 8, 9, 10, 12])
    }

    @Test(arguments: ["SET s monkeys=2", "STOP s", "START s target=ab", "CLEAR s"])
    func aChangeShowsTheStoreTheNextEntry(_ change: String) throws {
        var typing = try Typing(unseen: 100)
        typing.type(3)
        try typing.harness.expectOK(change, now: typing.now)
        if change.hasPrefix("STOP") { try typing.harness.expectOK("START s", now: typing.now) }
        typing.type(2)
        #expect(typing.store.appended.map(\.id) == [1, 4], "after \(change)")
        #expect(typing.store.recorded.map(\.id) == [2, 3, 5])
    }

    @Test func aRefusedChangeLeavesWhatTheStoreSeesAlone() throws {
        var typing = try Typing(unseen: 100)
        typing.type(2)
        typing.store.failure = StorageError("disk full")
        #expect(try typing.harness.send("SET s monkeys=2", now: typing.now).errorCode == .storageError)
        typing.type(2)
        #expect(typing.store.appended.map(\.id) == [1])
    }

    @Test func aReloadShowsEverySessionItsNextEntry() throws {
        var typing = try Typing(unseen: 100)
        typing.type(2)
        typing.harness.engine.update(Limits())
        typing.type(2)
        #expect(typing.store.appended.map(\.id) == [1, 3])
    }

    @Test func entriesOfASessionTheStoreDoesNotKeepAreNotRecorded() throws {
        var typing = try Typing(unseen: 0, keepsEntries: false)
        typing.type(3)
        #expect(typing.store.appended.isEmpty && typing.store.recorded.isEmpty)
        #expect(typing.harness.engine.session(named: try #require(SessionName("s")))?.typed == 3)
    }
}
