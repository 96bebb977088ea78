import Testing

@testable import MonkeyCore

/// A session's appender sees the entries it asks for; the others go to the
/// store's `record`, so that most ticks never reach a session's bookkeeping.
@Suite("Entries seen by the appender")
struct EngineAppenderTests {
    /// Ticks session "s" (100 ms interval) through `count` more intervals.
    static func type(_ harness: inout Harness, _ count: Int, from start: inout UInt64) {
        for _ in 0..<count {
            start += ms(100)
            _ = harness.tick(now: start)
        }
    }

    @Test func theAppenderSeesTheEntriesItAsksForAndTheStoreRecordsTheRest() throws {
        let store = TestStore()
        store.entriesUnseen = 4
        var harness = Harness(store: store)
        try harness.expectOK("START s")
        var now: UInt64 = 0
        Self.type(&harness, 12, from: &now)
        #expect(store.appended.map(\.id) == [1, 6, 11])
        #expect(store.recorded.map(\.id) == [2, 3, 4, 5, 7, 8, 9, 10, 12])
    }

    @Test(arguments: ["SET s monkeys=2", "STOP s", "START s target=ab", "CLEAR s"])
    func aChangeTheStoreMadeDurableShowsTheNextEntry(_ change: String) throws {
        let store = TestStore()
        store.entriesUnseen = 100
        var harness = Harness(store: store)
        try harness.expectOK("START s")
        var now: UInt64 = 0
        Self.type(&harness, 3, from: &now)
        try harness.expectOK(change, now: now)
        if change.hasPrefix("STOP") { try harness.expectOK("START s", now: now) }
        Self.type(&harness, 2, from: &now)
        #expect(store.appended.map(\.id) == [1, 4], "after \(change)")
        #expect(store.recorded.map(\.id) == [2, 3, 5])
    }

    @Test func aRefusedChangeLeavesTheAppenderAlone() throws {
        let store = TestStore()
        store.entriesUnseen = 100
        var harness = Harness(store: store)
        try harness.expectOK("START s")
        var now: UInt64 = 0
        Self.type(&harness, 2, from: &now)
        store.failure = StorageError("disk full")
        #expect(try harness.send("SET s monkeys=2", now: now).errorCode == .storageError)
        Self.type(&harness, 2, from: &now)
        #expect(store.appended.map(\.id) == [1])
    }

    @Test func aReloadShowsEverySessionItsNextEntry() throws {
        let store = TestStore()
        store.entriesUnseen = 100
        var harness = Harness(store: store)
        try harness.expectOK("START s")
        var now: UInt64 = 0
        Self.type(&harness, 2, from: &now)
        harness.engine.update(Limits())
        Self.type(&harness, 2, from: &now)
        #expect(store.appended.map(\.id) == [1, 3])
    }

    @Test func entriesOfASessionTheStoreDoesNotKeepAreNotRecorded() throws {
        let store = TestStore()
        store.keepsEntries = false
        var harness = Harness(store: store)
        try harness.expectOK("START s")
        var now: UInt64 = 0
        Self.type(&harness, 3, from: &now)
        #expect(store.appended.isEmpty && store.recorded.isEmpty)
        #expect(harness.engine.session(named: try #require(SessionName("s")))?.typed == 3)
    }
}
