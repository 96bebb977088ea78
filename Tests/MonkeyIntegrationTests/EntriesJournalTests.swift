import Foundation
import Glibc
import MonkeyCore
import Testing

/// The entries journal: what every session typed goes there at each sync,
/// and reaches the entries files when it is folded (past `journal_size`,
/// at a clean shutdown, at start-up after a crash).
@Suite("Entries journal")
struct EntriesJournalTests {
    static let quickSync = "sync_interval = 20ms\n"

    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    /// What the journal at `path` holds, as a daemon starting on it reads it.
    static func journal(_ path: String) -> JournalContents {
        JournalFile.decode((try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [])
    }

    /// The entries of `session`'s newest epoch that the journal at `path` holds.
    static func journaled(_ path: String, _ session: String = "s") -> [DurabilityTests.LoggedEntry] {
        guard let name = SessionName(session) else { return [] }
        return entries(of: name, in: journal(path)).map {
            DurabilityTests.LoggedEntry(id: $0.id, number: $0.number, text: $0.text, isHit: $0.isHit)
        }
    }

    /// The entries of the session's newest epoch in the journal.
    static func entries(of name: SessionName, in contents: JournalContents) -> [Entry] {
        contents.entries.filter { $0.key.name == name }.max { $0.key.epoch < $1.key.epoch }?.value ?? []
    }

    static func journalPath(_ state: TemporaryDirectory) -> String { "\(state.path)/sessions/journal" }
    static func entriesPath(_ state: TemporaryDirectory) -> String { "\(state.path)/sessions/s.entries" }

    /// The entries session "s"'s file holds, none of them damaged.
    static func fileEntries(_ state: TemporaryDirectory) -> [DurabilityTests.LoggedEntry]? {
        guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: entriesPath(state)))) else { return nil }
        let contents = EntryFile.decode(bytes, keepingLast: .max)
        guard contents.damage == nil else { return nil }
        return contents.entries.map {
            DurabilityTests.LoggedEntry(id: $0.id, number: $0.number, text: $0.text, isHit: $0.isHit)
        }
    }

    /// A daemon killed with -9 after session "s" typed at least 20
    /// entries, all of them synced to the journal and none folded yet.
    static func killedWithAFullJournal(_ state: TemporaryDirectory) throws -> [DurabilityTests.LoggedEntry] {
        let daemon = try DaemonProcess(configuration: quickSync, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=5 interval=1ms")
        #expect(try eventually { try DurabilityTests.log(daemon, "s").count >= 20 })
        _ = try daemon.request("STOP s")
        let entries = try DurabilityTests.log(daemon, "s")
        #expect(eventually { journaled(journalPath(state)) == entries })
        #expect(size(entriesPath(state)) == EntryFile.preambleLength, "nothing is folded before the journal is large")
        try daemon.stop(signal: SIGKILL)
        return entries
    }

    /// Stops session "s" (100 monkeys) once more than 3 × 64 KiB of its
    /// entries were folded, kills the daemon with -9 and starts another on
    /// its state: the entries come back in order, none twice, at least
    /// those folded (125 bytes each in the entries file).
    static func expectACrashToKeepWhatWasFolded(
        _ daemon: DaemonProcess, _ state: TemporaryDirectory, configuration: String
    ) throws {
        _ = try daemon.request("STOP s")
        let typed = try DurabilityTests.log(daemon, "s")
        try daemon.stop(signal: SIGKILL)

        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let restored = try DurabilityTests.log(again, "s")
        #expect(restored.count > 3 * (64 << 10) / 125)
        #expect(restored == Array(typed.prefix(restored.count)))
    }

    @Test func aCrashLosesNothingSyncedToTheJournal() throws {
        let state = TemporaryDirectory()
        let entries = try Self.killedWithAFullJournal(state)
        let again = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        #expect(try DurabilityTests.log(again, "s") == entries)
        #expect(again.startupLog.contains("folded \(entries.count) entries of 1 sessions from the entries journal"))
        // Folded at start: the entries file holds them and the journal is gone.
        #expect(Self.fileEntries(state) == entries)
        #expect(Self.size(Self.journalPath(state)) == nil)
    }

    @Test(arguments: [1, 7, 8, 9, 40, 41, 42, 83])
    func aTornJournalIsCutAndTheRecordsBeforeItLoad(cut: Int) throws {
        let state = TemporaryDirectory()
        let entries = try Self.killedWithAFullJournal(state)
        let path = Self.journalPath(state)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(bytes.dropLast(cut)).write(to: URL(fileURLWithPath: path))
        // A sync's entries are one record, kept whole or not at all.
        let cutJournal = Self.journal(path)
        let kept = Self.entries(of: try #require(SessionName("s")), in: cutJournal).count
        #expect(kept < entries.count)
        let lost = entries.count - kept
        let again = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        #expect(try DurabilityTests.log(again, "s") == Array(entries.dropLast(lost)))
        #expect(again.startupLog.contains("cut it there") == (cutJournal.damage != nil))
        // Ids handed out before the crash are never given again.
        _ = try again.request("START s")
        #expect(try eventually { try DurabilityTests.log(again, "s").count > entries.count - lost })
        let next = try DurabilityTests.log(again, "s")[entries.count - lost]
        #expect(next.id > entries.last?.id ?? 0)
    }

    /// The entries file as the second release wrote it (format version 2,
    /// a record per entry), holding `entries` of `epoch`.
    static func secondReleaseFile(_ entries: [Entry], epoch: UInt64) -> [UInt8] {
        var bytes = Array("MKYENT".utf8) + [0, 2]
        withUnsafeBytes(of: epoch.littleEndian) { bytes += $0 }
        for entry in entries {
            var body: [UInt8] = []
            withUnsafeBytes(of: entry.id.littleEndian) { body += $0 }
            withUnsafeBytes(of: entry.number.littleEndian) { body += $0 }
            body += [entry.isHit ? 1 : 0] + Array(entry.text.utf8)
            let length = withUnsafeBytes(of: UInt32(body.count).littleEndian) { Array($0) }
            let crc = CRC32C.checksum(body, continuing: CRC32C.checksum(length))
            bytes += length + withUnsafeBytes(of: crc.littleEndian) { Array($0) } + body
        }
        return bytes
    }

    /// An entries file of the second release, with a journal of entries
    /// it does not hold (a crash): the first start writes the file afresh
    /// in this release's format, holding them all, and the next reads it
    /// as it is.
    @Test func anEntriesFileOfTheSecondReleaseIsWrittenAfresh() throws {
        let state = TemporaryDirectory()
        let folded = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        _ = try folded.request("START s monkeys=5 interval=1ms")
        #expect(try eventually { try DurabilityTests.log(folded, "s").count >= 20 })
        _ = try folded.request("STOP s")
        #expect(try folded.stop() == 0)
        let current = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.entriesPath(state))))
        let contents = EntryFile.decode(current, keepingLast: .max)
        #expect(contents.damage == nil && contents.entries.count >= 20)
        try Data(Self.secondReleaseFile(contents.entries, epoch: contents.epoch)).write(
            to: URL(fileURLWithPath: Self.entriesPath(state)))
        let crashed = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        _ = try crashed.request("START s")
        #expect(try eventually { try DurabilityTests.log(crashed, "s").count >= contents.entries.count + 20 })
        _ = try crashed.request("STOP s")
        let entries = try DurabilityTests.log(crashed, "s")
        #expect(
            eventually { Self.journaled(Self.journalPath(state)) == Array(entries.dropFirst(contents.entries.count)) })
        try crashed.stop(signal: SIGKILL)

        for round in 0..<2 {
            let again = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
            #expect(try DurabilityTests.log(again, "s") == entries, "round \(round)")
            // Nothing was damaged: nothing is cut or left behind.
            #expect(!again.startupLog.contains("cut") && !again.startupLog.contains("kept the"), "round \(round)")
            #expect(try again.stop() == 0)
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.entriesPath(state))))
            #expect(file.prefix(8).elementsEqual(EntryFile.header), "round \(round)")
            #expect(Self.fileEntries(state) == entries, "round \(round)")
        }
    }

    @Test func aCleanStopFoldsTheJournalIntoTheEntriesFiles() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=5 interval=1ms")
        #expect(eventually { Self.journaled(Self.journalPath(state)).count > 10 })
        _ = try daemon.request("STOP s")
        let entries = try DurabilityTests.log(daemon, "s")
        #expect(try daemon.stop() == 0)
        #expect(Self.size(Self.journalPath(state)) == nil)
        #expect(Self.fileEntries(state) == entries)
        let again = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        #expect(try DurabilityTests.log(again, "s") == entries)
        #expect(!again.startupLog.contains("entries journal"))
    }

    /// A journal past `journal_size` is folded while the daemon runs: the
    /// journal stays small, the entries file grows, and a crash afterwards
    /// finds every entry once, in order.
    @Test func aLargeJournalIsFoldedWhileTyping() throws {
        let state = TemporaryDirectory()
        let configuration = Self.quickSync + "journal_size = 64K\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=100 interval=1ms")
        var largestJournal = 0
        #expect(
            eventually(timeout: 30) {
                largestJournal = max(largestJournal, Self.size(Self.journalPath(state)) ?? 0)
                return (Self.size(Self.entriesPath(state)) ?? 0) > 3 * (64 << 10)
            })
        // Folded once past 64 KiB: what one sync adds is far less than that.
        #expect(largestJournal < 2 * (64 << 10))
        try Self.expectACrashToKeepWhatWasFolded(daemon, state, configuration: configuration)
    }

    @Test func entriesTypedBeforeAClearStayDroppedAfterACrash() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=5 interval=1ms")
        #expect(eventually { Self.journaled(Self.journalPath(state)).count > 20 })
        let lastBeforeClear = try DurabilityTests.log(daemon, "s").last?.id ?? 0
        #expect(try daemon.request("CLEAR s") == ["OK cleared s"])
        // Typing after the CLEAR is of a new epoch; what came before is of the old one.
        #expect(
            eventually {
                let journaled = Self.journaled(Self.journalPath(state))
                return journaled.count > 20 && journaled.allSatisfy { $0.id > lastBeforeClear }
            })
        _ = try daemon.request("STOP s")
        let afterClear = try DurabilityTests.log(daemon, "s")
        try daemon.stop(signal: SIGKILL)

        let again = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        let entries = try DurabilityTests.log(again, "s")
        #expect(entries.count >= 20)
        #expect(entries.first?.number == 1)
        #expect(entries.allSatisfy { $0.id > lastBeforeClear })
        #expect(entries == Array(afterClear.prefix(entries.count)))
    }

    @Test func aDeletedSessionsJournalRecordsNeverReachANewSessionOfTheSameName() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=5 interval=1ms")
        #expect(eventually { Self.journaled(Self.journalPath(state)).count > 20 })
        try BufferedEntriesTests.expectADeletedSessionToComeBackEmpty(
            daemon, state, configuration: Self.quickSync, stoppedBy: SIGKILL)
    }

    /// A reload applies a new `journal_size` to the journal already written.
    @Test func aReloadedJournalSizeApplies() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: Self.quickSync, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=100 interval=1ms")
        #expect(eventually { (Self.size(Self.journalPath(state)) ?? 0) > 128 << 10 })
        #expect(Self.size(Self.entriesPath(state)) == EntryFile.preambleLength)
        let path = daemon.directory.path + "/monkeyd.conf"
        try (Self.quickSync + "journal_size = 64K\n").write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        _ = try #require(daemon.notify.waitFor("RELOADING=1"))
        _ = try #require(daemon.notify.waitFor("READY=1"))
        #expect(eventually { (Self.size(Self.entriesPath(state)) ?? 0) > 128 << 10 })
    }

    /// `chattr +i` makes a file unwritable even for root, where mode bits do not.
    static func setImmutable(_ path: String, _ isImmutable: Bool) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [isImmutable ? "+i" : "-i", path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static let filesCanBeMadeImmutable: Bool = {
        let probe = TemporaryDirectory()
        let path = probe.path + "/probe"
        guard FileManager.default.createFile(atPath: path, contents: Data()) else { return false }
        defer { _ = setImmutable(path, false) }
        return setImmutable(path, true)
    }()

    /// An entries file that cannot be written stops the fold, not the
    /// typing: the journal keeps every record, the trouble is reported
    /// once, and the fold is done when the file can be written again.
    @Test(.enabled(if: filesCanBeMadeImmutable, "needs root and chattr on /tmp"))
    func aFoldThatFailsKeepsTheJournalUntilItCanBeDone() throws {
        let state = TemporaryDirectory()
        let configuration = Self.quickSync + "journal_size = 64K\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START s monkeys=100 interval=1ms")
        let entries = Self.entriesPath(state)
        // Started afresh for the session's epoch at the first sync.
        #expect(eventually { Self.size(entries) == EntryFile.preambleLength })
        #expect(Self.setImmutable(entries, true))
        defer { _ = Self.setImmutable(entries, false) }
        #expect(eventually { daemon.standardError.contains("storage trouble: cannot write \(entries)") })
        #expect(eventually { (Self.size(Self.journalPath(state)) ?? 0) > 3 * (64 << 10) })
        #expect(Self.size(entries) == EntryFile.preambleLength)
        #expect(Self.setImmutable(entries, false))
        #expect(eventually { (Self.size(entries) ?? 0) > 3 * (64 << 10) })
        #expect(eventually { daemon.standardError.contains("storage recovered") })
        #expect(FullDiskTests.occurrences("storage trouble", in: daemon.standardError) == 1)
        try Self.expectACrashToKeepWhatWasFolded(daemon, state, configuration: configuration)
    }
}
