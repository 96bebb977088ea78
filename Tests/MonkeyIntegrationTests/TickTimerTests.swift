import Foundation
import Glibc
import MonkeyCore
import Testing

/// The one tick timer: with many sessions due close together it repeats
/// every coalescing window instead of being set again at each batch; it
/// still parks when typing stops.
@Suite("Tick timer")
struct TickTimerTests {
    /// Each session's name and entries typed.
    static func typed(_ daemon: DaemonProcess) throws -> [String: Int] {
        var typed: [String: Int] = [:]
        for line in try daemon.request("STATUS").dropLast() {
            let record = try fields(line)
            typed[record["name"] ?? ""] = Int(record["typed"] ?? "") ?? 0
        }
        return typed
    }

    @Test func manySessionsTypeAndTheTimerParksWhenTheyStop() throws {
        let daemon = try DaemonProcess(configuration: "sync_interval = 20ms\n")
        // 200 sessions of 50 ms: one due about every quarter millisecond.
        for index in 0..<200 { _ = try daemon.request("START s\(index) interval=50ms") }
        #expect(try eventually { try Self.typed(daemon).values.allSatisfy { $0 >= 10 } })
        for index in 0..<200 { _ = try daemon.request("STOP s\(index)") }
        // Wait for the last sync: the entries journal then holds every entry.
        let typed = try Self.typed(daemon)
        let journal = daemon.stateDirectory + "/sessions/journal"
        #expect(
            eventually {
                let contents = EntriesJournalTests.journal(journal)
                return typed.allSatisfy { name, count in
                    SessionName(name).map { EntriesJournalTests.entries(of: $0, in: contents).count } == count
                }
            })
        #expect(daemon.notify.waitFor("STATUS=200 sessions, 0 typing") != nil)
        let before = try daemon.waitUntilIdle()
        usleep(300_000)  // an observation window of 100 coalescing windows
        #expect(try daemon.wakeUpsBesidesRequests() == before)
    }
}
