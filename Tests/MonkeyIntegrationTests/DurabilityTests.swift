import Foundation
import Glibc
import MonkeyCore
import Testing

/// Durable state across restarts: a clean restart is exact; damaged files
/// are cut or set aside, never fatal.
@Suite("Durable state")
struct DurabilityTests {
    struct LoggedEntry: Equatable {
        let id: UInt64
        let number: UInt64
        let text: String
        let isHit: Bool
    }

    static func log(_ daemon: DaemonProcess, _ session: String) throws -> [LoggedEntry] {
        try entries(daemon.request("LOG \(session)"))
    }

    /// The entries of a LOG response.
    static func entries(_ response: [String]) throws -> [LoggedEntry] {
        try response.dropLast().map { line in
            let entry = try fields(line)
            return LoggedEntry(
                id: UInt64(entry["id"] ?? "") ?? 0, number: UInt64(entry["number"] ?? "") ?? 0,
                text: entry["text"] ?? "", isHit: entry["hit"] == "yes")
        }
    }

    static func status(_ daemon: DaemonProcess, _ session: String) throws -> [String: String] {
        try fields(try daemon.request("STATUS \(session)")[0])
    }

    @Test func aCleanRestartRestoresEverythingExactly() throws {
        let state = TemporaryDirectory()
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START typing target=ab monkeys=3 interval=2ms alphabet=abc")
        _ = try first.request("START still target=\"a \\\"b\" monkeys=2 interval=1ms alphabet=ab")
        _ = try first.request("START fresh interval=1h")
        _ = try first.request("START cleared interval=1ms")
        #expect(try eventually { try Int(Self.status(first, "still")["typed"] ?? "") ?? 0 > 300 })
        #expect(try eventually { try Int(Self.status(first, "cleared")["typed"] ?? "") ?? 0 > 20 })
        _ = try first.request("STOP still")
        _ = try first.request("CLEAR cleared")
        _ = try first.request("STOP cleared")
        _ = try first.request("SET fresh monkeys=9")
        _ = try first.request("STOP fresh")
        #expect(try eventually { try Int(Self.status(first, "typing")["typed"] ?? "") ?? 0 > 100 })
        let stopped = ["still", "fresh", "cleared"]
        let statuses = try stopped.map { try first.request("STATUS \($0)") }
        let logs = try stopped.map { try Self.log(first, $0) }
        let typingBefore = try Self.log(first, "typing")
        #expect(try first.stop() == 0)

        let second = try DaemonProcess(stateDirectory: state.path)
        #expect(try stopped.map { try second.request("STATUS \($0)") } == statuses)
        #expect(try stopped.map { try Self.log(second, $0) } == logs)
        // The typing session is back with every entry it typed, and types on without a gap.
        // Both in one write: the daemon answers them without a tick in between.
        let connection = try second.connect()
        try connection.send(Array("STATUS typing\nLOG typing\n".utf8))
        let typing = try fields(try connection.readResponse()[0])
        #expect(typing["state"] == "running" && typing["monkeys"] == "3" && typing["target"] == "ab")
        let typingAfter = try Self.entries(connection.readResponse())
        #expect(Array(typingAfter.prefix(typingBefore.count)) == typingBefore)
        #expect(typingAfter.map(\.id) == Array(1...UInt64(typingAfter.count)))
        #expect(typingAfter.map(\.number) == Array(1...UInt64(typingAfter.count)))
        #expect(UInt64(typing["typed"] ?? "") == UInt64(typingAfter.count))
        #expect(UInt64(typing["hits"] ?? "") == UInt64(typingAfter.filter(\.isHit).count))
        #expect(try eventually { try Self.log(second, "typing").count > typingAfter.count + 5 })
        let grown = try Self.log(second, "typing")
        #expect(grown.map(\.id) == Array(1...UInt64(grown.count)), "new ids continue where the old ones ended")
        #expect(second.startupLog.contains("restored session typing (typing"))
        // Ids continue after CLEAR across the restart too.
        _ = try second.request("START cleared")
        #expect(try eventually { try !Self.log(second, "cleared").isEmpty })
        let afterClear = try Self.log(second, "cleared")
        #expect(afterClear.first?.number == 1)
        #expect((afterClear.first?.id ?? 0) > 20, "the cleared session had used more than 20 ids")
    }

    /// Writes entries, stops cleanly, and returns the entries file's bytes.
    func preparedState(_ state: TemporaryDirectory, session: String = "s") throws -> [UInt8] {
        let daemon = try DaemonProcess(stateDirectory: state.path)
        _ = try daemon.request("START \(session) monkeys=5 interval=1ms")
        #expect(try eventually { try Self.log(daemon, session).count >= 20 })
        _ = try daemon.request("STOP \(session)")
        #expect(try daemon.stop() == 0)
        return try #require(try? [UInt8](Data(contentsOf: URL(fileURLWithPath: entriesPath(state, session)))))
    }

    func entriesPath(_ state: TemporaryDirectory, _ session: String) -> String {
        "\(state.path)/sessions/\(session).entries"
    }

    /// Record length with 5 monkeys: 8 header bytes, 17 fixed, 5 of text.
    static let recordLength = 30

    @Test(arguments: [1, 7, 8, 9, 24, 29, 30, 31, 59])
    func aTruncatedEntriesFileIsCutAndLoads(cut: Int) throws {
        let state = TemporaryDirectory()
        let bytes = try preparedState(state)
        let complete = (bytes.count - 8) / Self.recordLength
        try Data(bytes.dropLast(cut)).write(to: URL(fileURLWithPath: entriesPath(state, "s")))
        let daemon = try DaemonProcess(stateDirectory: state.path)
        let lost = (cut + Self.recordLength - 1) / Self.recordLength
        let entries = try Self.log(daemon, "s")
        #expect(entries.count == complete - lost)
        #expect(entries.map(\.id) == Array(1...UInt64(complete - lost)))
        let torn = cut % Self.recordLength != 0
        #expect(daemon.startupLog.contains("cut the file there") == torn)
        // The cut is made on disk: the next start finds nothing to cut.
        #expect(try daemon.stop() == 0)
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(try Self.log(again, "s") == entries)
        #expect(!again.startupLog.contains("cut the file there"))
    }

    @Test func aFlippedByteCutsFromItsRecordOn() throws {
        let state = TemporaryDirectory()
        var bytes = try preparedState(state)
        let complete = (bytes.count - 8) / Self.recordLength
        bytes[bytes.count - 2 * Self.recordLength + 20] ^= 0x04
        try Data(bytes).write(to: URL(fileURLWithPath: entriesPath(state, "s")))
        let daemon = try DaemonProcess(stateDirectory: state.path)
        #expect(try Self.log(daemon, "s").count == complete - 2)
        #expect(daemon.startupLog.contains("does not match its checksum"))
        _ = try daemon.request("START s")
        let entries = try Self.log(daemon, "s")
        #expect(try eventually { try Self.log(daemon, "s").count > entries.count })
    }

    @Test func aDamagedStateFileSetsOnlyThatSessionAside() throws {
        let state = TemporaryDirectory()
        _ = try preparedState(state, session: "good")
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START bad interval=1h")
        #expect(try first.stop() == 0)
        let statePath = "\(state.path)/sessions/bad.state"
        var text = try String(contentsOfFile: statePath, encoding: .utf8)
        text = text.replacingOccurrences(of: "monkeys=1", with: "monkeys=2")
        try text.write(toFile: statePath, atomically: false, encoding: .utf8)

        let daemon = try DaemonProcess(stateDirectory: state.path)
        #expect(try daemon.request("STATUS bad").last?.hasPrefix("ERR no-such-session") == true)
        #expect(try Self.log(daemon, "good").count >= 20)
        #expect(daemon.startupLog.contains("session bad could not be loaded"))
        #expect(daemon.startupLog.contains("checksum does not match"))
        #expect(FileManager.default.fileExists(atPath: statePath + ".damaged"))
        // The name is free again, and starts afresh.
        #expect(try daemon.request("START bad interval=1h") == ["OK started bad"])
    }

    @Test func deleteRemovesTheFilesAndClearEmptiesThem() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(stateDirectory: state.path)
        _ = try daemon.request("START gone interval=1ms")
        _ = try daemon.request("START kept interval=1ms")
        #expect(try eventually { try Self.log(daemon, "kept").count > 10 })
        _ = try daemon.request("DELETE gone")
        _ = try daemon.request("STOP kept")
        _ = try daemon.request("CLEAR kept")
        let sessions = "\(state.path)/sessions"
        #expect(!FileManager.default.fileExists(atPath: "\(sessions)/gone.state"))
        #expect(!FileManager.default.fileExists(atPath: "\(sessions)/gone.entries"))
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(sessions)/kept.entries")
        #expect((attributes[.size] as? Int) == 8, "only the header is left")
        kill(daemon.pid, SIGKILL)
        _ = try daemon.waitForExit()
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(try again.request("STATUS gone").last?.hasPrefix("ERR no-such-session") == true)
        #expect(try Self.log(again, "kept").isEmpty)
    }

    @Test func retentionBoundsTheEntriesFile() throws {
        let state = TemporaryDirectory()
        let configuration = "max_entries = 50\nsync_interval = 20ms\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START s interval=1ms")
        #expect(try eventually { try Int(Self.status(daemon, "s")["typed"] ?? "") ?? 0 > 1000 })
        _ = try daemon.request("STOP s")
        #expect(try daemon.stop() == 0)
        let size = try FileManager.default.attributesOfItem(atPath: entriesPath(state, "s"))[.size] as? Int ?? 0
        #expect(size <= 8 + 100 * 26, "at most twice max_entries records (file is \(size) bytes)")
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let entries = try Self.log(again, "s")
        #expect(entries.count == 50)
        let last = try #require(entries.last?.id)
        #expect(entries.map(\.id) == Array((last - 49)...last))
    }

    @Test func anIdleDaemonDoesNotWakeUpToSync() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: "sync_interval = 20ms\n", stateDirectory: state.path)
        _ = try daemon.request("START s interval=1ms")
        #expect(try eventually { try Int(Self.status(daemon, "s")["typed"] ?? "") ?? 0 > 50 })
        _ = try daemon.request("STOP s")
        let typed = try Int(Self.status(daemon, "s")["typed"] ?? "") ?? 0
        // Synced: the entries journal holds every entry.
        #expect(eventually { EntriesJournalTests.journaled(EntriesJournalTests.journalPath(state)).count == typed })
        #expect(daemon.notify.waitFor("STATUS=1 sessions, 0 typing") != nil)
        let before = try daemon.waitUntilIdle()
        usleep(600_000)  // an observation window of 30 sync intervals, not synchronisation
        // A sync timer left running would have woken it 30 times.
        #expect(try daemon.wakeUpsBesidesRequests() == before)
    }

    /// The values of a state file's lines.
    static func stateFile(_ state: TemporaryDirectory, _ session: String) throws -> [String: String] {
        let text = try String(contentsOfFile: "\(state.path)/sessions/\(session).state", encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    @Test func idsAreReservedAheadBeforeATypingSessionTypesAgain() throws {
        let state = TemporaryDirectory()
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START slow interval=1h")
        _ = try first.request("START idle interval=1h")
        _ = try first.request("STOP idle")
        #expect(try first.stop() == 0)
        let cleanly = try Self.stateFile(state, "slow")
        #expect(cleanly["reserved_id"] == cleanly["next_id"], "a clean shutdown reserves nothing beyond")

        let second = try DaemonProcess(stateDirectory: state.path)
        let slow = try Self.stateFile(state, "slow")
        let idle = try Self.stateFile(state, "idle")
        #expect((UInt64(slow["reserved_id"] ?? "") ?? 0) > (UInt64(slow["next_id"] ?? "") ?? 0))
        #expect(idle["reserved_id"] == idle["next_id"], "a stopped session needs no reservation")
        // A SIGTERM right after READY=1 can be lost (signal sources are set
        // up asynchronously); a round trip first.
        #expect(try second.request("PING") == ["OK pong"])
        #expect(try second.stop() == 0)
    }
}
