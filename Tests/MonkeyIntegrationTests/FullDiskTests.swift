import Foundation
import Glibc
import Testing

/// A full disk, simulated with a tiny tmpfs mounted for the test (root only).
@Suite("Full disk")
struct FullDiskTests {
    /// Runs a command and returns its exit status.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Writes to `path` until the file system is full.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x2A, count: 1024)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    static func typed(_ daemon: DaemonProcess) throws -> Int {
        Int(try fields(try daemon.request("STATUS s")[0])["typed"] ?? "") ?? 0
    }

    static func occurrences(_ text: String, in log: String) -> Int {
        log.components(separatedBy: text).count - 1
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskAnswersStorageErrorKeepsTypingAndRecovers() throws {
        let mountPoint = TemporaryDirectory()
        try #require(
            try Self.run(
                "/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0755", "monkeyd-test", mountPoint.path])
                == 0, "cannot mount a tmpfs")
        defer { _ = try? Self.run("/usr/bin/umount", ["-l", mountPoint.path]) }
        let state = mountPoint.path + "/state"
        let filler = mountPoint.path + "/filler"
        // Retention far above what the test types: a compaction would free
        // space by itself, and the disk would recover before the test lets it.
        let configuration = "sync_interval = 20ms\nmax_entries = 1000000\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state)
        _ = try daemon.request("START s monkeys=20 interval=1ms")
        #expect(try eventually { try Self.typed(daemon) > 200 })

        // Full: the change cannot be made durable, so it is refused and not
        // made. (Changes still fit in the zeros the control log keeps ahead.)
        var refusal: [String] = []
        var acknowledged = 20
        var attempt = 0
        #expect(
            try eventually {
                Self.fill(filler)
                attempt += 1
                let monkeys = 21 + attempt % 9
                refusal = try daemon.request("SET s monkeys=\(monkeys)")
                if refusal == ["OK updated s"] { acknowledged = monkeys }
                return refusal.last?.hasPrefix("ERR storage-error") == true
            })
        #expect(refusal.last?.contains("No space left on device") == true, "\(refusal)")
        #expect(try fields(try daemon.request("STATUS s")[0])["monkeys"] == String(acknowledged))
        // Typing goes on in memory through many failed syncs, reported once.
        // Whichever write failed first is the one reported; the journal stops
        // growing once the free bytes of its last page are used (and space a
        // failed write gave back is taken again).
        let journal = state + "/sessions/journal"
        #expect(
            try eventually {
                Self.fill(filler)
                let journalBefore = EntriesJournalTests.size(journal)
                let typedBefore = try Self.typed(daemon)
                // 200 entries of 20 monkeys are more than a page of journal.
                let typedOn = try eventually { try Self.typed(daemon) > typedBefore + 200 }
                return typedOn && EntriesJournalTests.size(journal) == journalBefore
            }, "the journal kept growing on a full disk")
        // Counted as they happen: the refused change and the failed writes.
        let scrape = try MetricsScrape(daemon)
        #expect(scrape["monkeyd_requests_total{verb=\"set\",result=\"storage-error\"}"] ?? 0 >= 1)
        #expect(scrape["monkeyd_storage_errors_total{operation=\"control_log\"}"] ?? 0 >= 1)
        #expect(scrape["monkeyd_storage_errors_total{operation=\"entries\"}"] ?? 0 >= 1)
        let troubleReports = Self.occurrences("storage trouble", in: daemon.standardError)
        let recoveries = Self.occurrences("storage recovered", in: daemon.standardError)
        let typedWhenFull = try Self.typed(daemon)
        #expect(try eventually { try Self.typed(daemon) > typedWhenFull + 500 })
        #expect(Self.occurrences("storage trouble", in: daemon.standardError) == troubleReports)
        #expect(Self.occurrences("storage recovered", in: daemon.standardError) == recoveries)

        // Space returns: the next sync writes everything, without being asked.
        try FileManager.default.removeItem(atPath: filler)
        #expect(eventually { Self.occurrences("storage recovered", in: daemon.standardError) == recoveries + 1 })
        #expect(try daemon.request("SET s monkeys=5") == ["OK updated s"])
        #expect(Self.occurrences("storage trouble", in: daemon.standardError) == troubleReports)

        // What was typed while the disk was full reached it: a restart finds a clean, whole log.
        #expect(try daemon.request("STOP s") == ["OK stopped s"])
        let before = try daemon.request("LOG s")
        #expect(try daemon.stop() == 0)
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state)
        #expect(try again.request("LOG s") == before)
        #expect(try fields(try again.request("STATUS s")[0])["monkeys"] == "5")
        #expect(!again.startupLog.contains("cut the file"))
        #expect(try again.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aReadOnlyStateDirectoryAnswersStorageErrorAndRecovers() throws {
        let mountPoint = TemporaryDirectory()
        try #require(
            try Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0755", "monkeyd-test", mountPoint.path])
                == 0, "cannot mount a tmpfs")
        defer { _ = try? Self.run("/usr/bin/umount", ["-l", mountPoint.path]) }
        let daemon = try DaemonProcess(
            configuration: "sync_interval = 20ms\n", stateDirectory: mountPoint.path + "/state")
        _ = try daemon.request("START s interval=1ms")
        #expect(try eventually { try Self.typed(daemon) > 50 })
        try #require(try Self.run("/usr/bin/mount", ["-o", "remount,ro", mountPoint.path]) == 0)
        let refusal = try daemon.request("CLEAR s")
        #expect(refusal.last?.hasPrefix("ERR storage-error") == true, "\(refusal)")
        #expect(refusal.last?.contains("Read-only file system") == true, "\(refusal)")
        let typedWhenReadOnly = try Self.typed(daemon)
        #expect(typedWhenReadOnly > 50, "CLEAR was not made")
        #expect(try eventually { try Self.typed(daemon) > typedWhenReadOnly + 200 })
        #expect(
            eventually { Self.occurrences("storage trouble", in: daemon.standardError) == 1 }, "\(daemon.standardError)"
        )
        try #require(try Self.run("/usr/bin/mount", ["-o", "remount,rw", mountPoint.path]) == 0)
        #expect(eventually { daemon.standardError.contains("storage recovered") })
        #expect(try daemon.request("CLEAR s") == ["OK cleared s"])
        #expect(Self.occurrences("storage trouble", in: daemon.standardError) == 1)
    }
}
