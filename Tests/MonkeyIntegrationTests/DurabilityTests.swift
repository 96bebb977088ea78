import Foundation
import Glibc
import MonkeyCore
import Testing

/// Durable state across restarts: a clean restart is exact; damaged files
/// are cut or set aside, never fatal; ids are reserved ahead on disk.
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

    /// Writes entries, stops cleanly, and returns the entries file's bytes:
    /// typed in two starts, so that two folds wrote the file, a run each.
    func preparedState(_ state: TemporaryDirectory, session: String = "s") throws -> [UInt8] {
        for _ in 0..<2 {
            let daemon = try DaemonProcess(stateDirectory: state.path)
            let before = try Self.log(daemon, session).count
            _ = try daemon.request("START \(session) monkeys=5 interval=1ms")
            #expect(try eventually { try Self.log(daemon, session).count >= before + 20 })
            _ = try daemon.request("STOP \(session)")
            #expect(try daemon.stop() == 0)
        }
        return try #require(try? [UInt8](Data(contentsOf: URL(fileURLWithPath: entriesPath(state, session)))))
    }

    func entriesPath(_ state: TemporaryDirectory, _ session: String) -> String {
        "\(state.path)/sessions/\(session).entries"
    }

    /// Where each run of an entries file ends, from the layout monkeyd(8)
    /// documents: after the preamble, each run's body length (u32) and
    /// checksum, then the body.
    static func runEnds(_ bytes: [UInt8]) -> [Int] {
        var ends: [Int] = []
        var offset = EntryFile.preambleLength
        while offset + 8 <= bytes.count {
            offset += 8 + bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            ends.append(offset)
        }
        return ends
    }

    /// Cut anywhere, the file keeps its whole runs: the entries of a run
    /// cut short are lost, the others load, and the cut is made on disk.
    @Test(arguments: [1, 7, 8, 9, 24, 29, 30, 31, 59, -1])
    func aTruncatedEntriesFileIsCutAndLoads(cut: Int) throws {
        let state = TemporaryDirectory()
        let bytes = try preparedState(state)
        let ends = Self.runEnds(bytes)
        #expect(ends.count == 2 && ends.last == bytes.count, "two folds, a run each")
        // -1: exactly the last run, a cut no start-up can tell from a clean end.
        let kept = cut == -1 ? ends[0] : bytes.count - cut
        try Data(bytes.prefix(kept)).write(to: URL(fileURLWithPath: entriesPath(state, "s")))
        let daemon = try DaemonProcess(stateDirectory: state.path)
        let whole = EntryFile.decode(bytes, keepingLast: .max).entries.map(\.id)
        let firstRun = EntryFile.decode(Array(bytes.prefix(ends[0])), keepingLast: .max).entries.count
        let entries = try Self.log(daemon, "s")
        #expect(firstRun >= 20 && whole.count >= firstRun + 20)
        #expect(entries.map(\.id) == Array(whole.prefix(firstRun)))
        #expect(daemon.startupLog.contains("cut the file there") == (cut != -1))
        // The cut is made on disk: the next start finds nothing to cut.
        #expect(try daemon.stop() == 0)
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(try Self.log(again, "s") == entries)
        #expect(!again.startupLog.contains("cut the file there"))
    }

    @Test func aFlippedByteCutsFromItsRunOn() throws {
        let state = TemporaryDirectory()
        var bytes = try preparedState(state)
        let ends = Self.runEnds(bytes)
        let firstRun = EntryFile.decode(Array(bytes.prefix(ends[0])), keepingLast: .max).entries.count
        bytes[bytes.count - 20] ^= 0x04
        try Data(bytes).write(to: URL(fileURLWithPath: entriesPath(state, "s")))
        let daemon = try DaemonProcess(stateDirectory: state.path)
        #expect(try Self.log(daemon, "s").count == firstRun)
        #expect(daemon.startupLog.contains("does not match its checksum"))
        _ = try daemon.request("START s")
        let entries = try Self.log(daemon, "s")
        #expect(try eventually { try Self.log(daemon, "s").count > entries.count })
    }

    /// A flipped byte in one session's record of the snapshot loses that
    /// session only; the snapshot is kept aside and its entries file too.
    @Test func aDamagedSnapshotRecordLosesOnlyThatSession() throws {
        let state = TemporaryDirectory()
        _ = try preparedState(state, session: "good")
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START bad interval=1h target=findme")
        #expect(try first.stop() == 0)
        let snapshotPath = "\(state.path)/sessions/snapshot"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: snapshotPath)))
        let target = Array("findme".utf8)
        let found = (0..<(bytes.count - target.count)).first { Array(bytes[$0..<($0 + target.count)]) == target }
        let at = try #require(found)
        bytes[at] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: snapshotPath))

        let daemon = try DaemonProcess(stateDirectory: state.path)
        #expect(try daemon.request("STATUS bad").last?.hasPrefix("ERR no-such-session") == true)
        #expect(try Self.log(daemon, "good").count >= 20)
        #expect(daemon.startupLog.contains("is damaged"))
        #expect(daemon.startupLog.contains("does not match its checksum"))
        #expect(FileManager.default.fileExists(atPath: snapshotPath + ".damaged"))
        #expect(FileManager.default.fileExists(atPath: "\(state.path)/sessions/bad.entries.damaged"))
        // The name is free again, and starts afresh; the next start is clean.
        #expect(try daemon.request("START bad interval=1h") == ["OK started bad"])
        #expect(try daemon.stop() == 0)
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(!again.startupLog.contains("damaged"))
        #expect(try Self.log(again, "good").count >= 20)
        #expect(try again.request("STATUS bad").last == "OK")
    }

    /// An entries file that cannot be read is set aside, never deleted: the
    /// session goes on with its settings and ids past the old ones, and it
    /// stays through the next compaction.
    @Test func anUnreadableEntriesFileIsSetAsideAndTheSessionGoesOn() throws {
        let state = TemporaryDirectory()
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START s target=abc interval=1ms")
        #expect(try eventually { try Int(fields(first.request("STATUS s")[0])["entries"] ?? "") ?? 0 >= 20 })
        _ = try first.request("STOP s")
        let lastID = try #require(try Self.entries(first.request("LOG s")).last?.id)
        try first.stop()
        let path = state.path + "/sessions/s.entries"
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)  // reads fail

        let second = try DaemonProcess(configuration: "control_log_size = 64K\n", stateDirectory: state.path)
        #expect(eventually { second.standardError.contains("moved the file to \(path).unreadable") })
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path + ".unreadable", isDirectory: &isDirectory))
        let status = try fields(second.request("STATUS s")[0])
        #expect(status["target"] == "abc" && status["state"] == "stopped" && status["entries"] == "0")
        _ = try second.request("START s")
        #expect(try eventually { try !second.request("LOG s").dropLast().isEmpty })
        let next = try #require(try Self.entries(second.request("LOG s")).first?.id)
        #expect(next > lastID, "ids go on past the old ones")
        try second.stop()
        let third = try DaemonProcess(stateDirectory: state.path)
        #expect(try fields(third.request("STATUS s")[0])["target"] == "abc", "the session stays")
    }

    @Test func deleteRemovesTheFilesAndClearEmptiesThem() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: "sync_interval = 20ms\n", stateDirectory: state.path)
        _ = try daemon.request("START gone interval=1ms")
        _ = try daemon.request("START kept interval=1ms")
        #expect(try eventually { try Self.log(daemon, "kept").count > 10 })
        _ = try daemon.request("DELETE gone")
        _ = try daemon.request("STOP kept")
        _ = try daemon.request("CLEAR kept")
        let sessions = "\(state.path)/sessions"
        // At the next sync: the entries file is removed, and started afresh for the new epoch.
        #expect(eventually { !FileManager.default.fileExists(atPath: "\(sessions)/gone.entries") })
        #expect(
            eventually {
                EntriesJournalTests.size("\(sessions)/kept.entries") == EntryFile.preambleLength
            }, "only the preamble is left")
        kill(daemon.pid, SIGKILL)
        _ = try daemon.waitForExit()
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(try again.request("STATUS gone").last?.hasPrefix("ERR no-such-session") == true)
        #expect(try Self.log(again, "kept").isEmpty)
    }

    /// A DELETE or CLEAR acknowledged just before a crash holds, whatever
    /// the storage thread had done with the files.
    @Test func deleteAndClearHoldAfterAnImmediateCrash() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: "sync_interval = 20ms\n", stateDirectory: state.path)
        _ = try daemon.request("START gone interval=1ms")
        _ = try daemon.request("START kept interval=1ms")
        #expect(try eventually { try Self.log(daemon, "kept").count > 100 })
        let connection = try daemon.connect()
        try connection.send(Array("DELETE gone\nCLEAR kept\nSTOP kept\n".utf8))
        #expect(try connection.readResponse() == ["OK deleted gone"])
        #expect(try connection.readResponse() == ["OK cleared kept"])
        #expect(try connection.readResponse() == ["OK stopped kept"])
        kill(daemon.pid, SIGKILL)
        _ = try daemon.waitForExit()
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(try again.request("STATUS gone").last?.hasPrefix("ERR no-such-session") == true)
        #expect(try Self.log(again, "kept").isEmpty)
        #expect(try Self.status(again, "kept")["state"] == "stopped")
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
        #expect(
            size <= EntryFile.preambleLength + 100 * 26, "at most twice max_entries records (file is \(size) bytes)")
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

    /// What the snapshot and the control log segments after it say, as a
    /// daemon starting on them reads them.
    static func controlState(_ state: TemporaryDirectory) throws -> ControlState {
        let directory = state.path + "/sessions"
        var result = ControlState()
        var covered: UInt64 = 0
        if let bytes = FileManager.default.contents(atPath: directory + "/snapshot") {
            (result, covered) = try ControlFile.decodeSnapshot([UInt8](bytes))
        }
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap { name in
            name.hasPrefix("control.") ? UInt64(name.dropFirst("control.".count)) : nil
        }
        for segment in segments.sorted() where segment > covered {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(directory)/control.\(segment)")))
            for record in ControlFile.decodeLog(bytes).records { result.apply(record) }
        }
        return result
    }

    static func stored(_ state: TemporaryDirectory, _ session: String) throws -> StoredSession {
        let name = try #require(SessionName(session))
        return try #require(try controlState(state).sessions[name])
    }

    @Test func idsAreReservedAheadBeforeATypingSessionTypesAgain() throws {
        let state = TemporaryDirectory()
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START slow interval=1h")
        _ = try first.request("START idle interval=1h")
        _ = try first.request("STOP idle")
        #expect(try Self.stored(state, "slow").reservedID > 1, "a START reserves ahead")
        #expect(try first.stop() == 0)
        let cleanly = try Self.stored(state, "slow")
        #expect(cleanly.reservedID == cleanly.snapshot.nextID, "a clean shutdown reserves nothing beyond")

        let second = try DaemonProcess(stateDirectory: state.path)
        let slow = try Self.stored(state, "slow")
        let idle = try Self.stored(state, "idle")
        #expect(slow.reservedID > slow.snapshot.nextID)
        #expect(idle.reservedID == idle.snapshot.nextID, "a stopped session needs no reservation")
        // A SIGTERM right after READY=1 can be lost (signal sources are set
        // up asynchronously); a round trip first.
        #expect(try second.request("PING") == ["OK pong"])
        #expect(try second.stop() == 0)
    }
}
