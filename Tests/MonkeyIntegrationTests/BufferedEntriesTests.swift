import Foundation
import Glibc
import Testing

/// Typed entries wait in memory between syncs: what CLEAR and DELETE do to
/// them, and what bounds them when `sync_interval` is long.
@Suite("Entries buffered between syncs")
struct BufferedEntriesTests {
    /// Nothing is synced by the timer during a test: what reaches the disk
    /// gets there at shutdown, or because too much piled up.
    static let unsynced = "sync_interval = 1h\n"

    static func typed(_ daemon: DaemonProcess, _ session: String) throws -> Int {
        Int(try fields(try daemon.request("STATUS \(session)")[0])["typed"] ?? "") ?? 0
    }

    @Test func entriesTypedBeforeAClearNeverComeBackAfterIt() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.unsynced, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=2 interval=1ms")
        #expect(try eventually { try Self.typed(daemon, "s") > 200 })
        #expect(try daemon.request("CLEAR s") == ["OK cleared s"])
        #expect(try eventually { try DurabilityTests.log(daemon, "s").count > 20 })
        #expect(try daemon.request("STOP s") == ["OK stopped s"])
        let afterClear = try DurabilityTests.log(daemon, "s")
        #expect(afterClear.first?.number == 1)
        #expect(try daemon.stop() == 0)

        let again = try DaemonProcess(configuration: Self.unsynced, stateDirectory: state.path)
        #expect(try DurabilityTests.log(again, "s") == afterClear)
    }

    @Test func aDeletedSessionsEntriesNeverReachANewSessionOfTheSameName() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.unsynced, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=2 interval=1ms")
        #expect(try eventually { try Self.typed(daemon, "s") > 200 })
        try Self.expectADeletedSessionToComeBackEmpty(
            daemon, state, configuration: Self.unsynced, stoppedBy: SIGTERM)
    }

    /// DELETEs session "s", STARTs it afresh (not typing yet), stops the
    /// daemon with `signal` and starts another on its state: "s" is the new
    /// session, with nothing of the deleted one.
    static func expectADeletedSessionToComeBackEmpty(
        _ daemon: DaemonProcess, _ state: TemporaryDirectory, configuration: String, stoppedBy signal: Int32
    ) throws {
        #expect(try daemon.request("DELETE s") == ["OK deleted s"])
        #expect(try daemon.request("START s interval=1h") == ["OK started s"])
        let status = try daemon.stop(signal: signal)
        if signal == SIGTERM { #expect(status == 0) }

        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        #expect(try DurabilityTests.log(again, "s").isEmpty)
        #expect(try typed(again, "s") == 0)
    }

    @Test func aLongSyncIntervalStillWritesWhenMuchPilesUp() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.unsynced, stateDirectory: state.path)
        _ = try daemon.request("START big monkeys=10000 interval=1ms")
        // Typing reaches the entries journal, and the entries file when the journal is folded.
        func size() -> Int {
            [EntriesJournalTests.journalPath(state), "\(state.path)/sessions/big.entries"].reduce(0) {
                $0 + (EntriesJournalTests.size($1) ?? 0)
            }
        }
        // The outbox is written early at 16 MiB, about 2 s of this typing in
        // a release build but 40–50 s under ThreadSanitizer, and more while
        // the rest of the suite runs beside it. The deadline only has to be
        // far below the hour a sync would otherwise wait.
        #expect(eventually(timeout: 300) { size() > 8 << 20 }, "written long before an hour, at \(size()) bytes")
    }
}
