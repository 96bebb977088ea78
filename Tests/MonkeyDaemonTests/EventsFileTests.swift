import Dispatch
import Foundation
import MonkeyCore
import Testing

@testable import MonkeyDaemon

/// The events file, written by the store from the event log at each sync:
/// whatever comes between two syncs, the file ends with the log's newest
/// events, ids increasing, and a restart finds them.
@Suite("The events file")
struct EventsFileTests {
    static let second = Interval(nanoseconds: 1_000_000_000)

    func openStore(_ directory: TemporaryDirectory) throws -> FileStore {
        try FileStore(directory: directory.path, syncInterval: Self.second, journalLimit: 64 << 20, retention: 100) {
            _, _ in
        }
    }

    func sync(_ store: FileStore, _ log: EventLog) {
        let synced = DispatchSemaphore(value: 0)
        store.sync(events: log, replyingOn: DispatchQueue(label: "syncs")) { synced.signal() }
        synced.wait()
    }

    /// Appends `count` events to the log, as the daemon publishes them.
    func publish(_ count: Int, to log: inout EventLog) throws {
        let name = try #require(SessionName("s"))
        for index in 0..<count {
            log.append(
                Event(.updated(Event.Updated(SettingsChange(monkeys: index + 1), warning: nil)), session: name),
                as: .updated,
                of: name, time: 0)
        }
    }

    @Test(arguments: [1, 3, 4, 5, 9, 30])
    func theFileEndsWithTheNewestEventsWhateverCameBetweenSyncs(perSync: Int) throws {
        let directory = TemporaryDirectory()
        var store = try openStore(directory)
        var log = EventLog(capacity: 4, nextID: 1)
        for _ in 0..<6 {
            try publish(perSync, to: &log)
            #expect(store.hasPendingWrites(events: log))
            sync(store, log)
            #expect(!store.hasPendingWrites(events: log))
            // What a restart reads: ids increasing, ending with the log's newest.
            let loaded = try openStore(directory).loadedEvents
            #expect(loaded.map(\.id) == loaded.map(\.id).sorted() && Set(loaded.map(\.id)).count == loaded.count)
            #expect(Array(loaded.map(\.id).suffix(log.count)) == log.retained.map(\.id))
            #expect(loaded.last == log.newest)
            // The file is rewritten before it holds much more than the log.
            #expect(loaded.count < 2 * log.capacity + perSync)
        }
        store = try openStore(directory)
        #expect(store.loadedEvents.last?.id == UInt64(6 * perSync))
    }
}
