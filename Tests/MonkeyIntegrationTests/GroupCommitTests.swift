import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// Group commit (monkeyd(8), DURABILITY): the changes read in one pass share
/// one write and one sync of the control log; an OK still means the change
/// survives kill -9, and a change is never half applied.
@Suite("Group commit")
struct GroupCommitTests {
    /// A counter of METRICS.
    static func counter(_ daemon: DaemonProcess, _ name: String) throws -> Int {
        let line = try #require(try daemon.request("METRICS").first { $0.hasPrefix(name + " ") })
        return Int(line.split(separator: " ").last ?? "") ?? -1
    }

    /// A session changed many times in one group is written once, in its
    /// state after the last change: that is the one a restart brings back.
    @Test func pipelinedChangesShareOneSync() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(stateDirectory: state.path)
        _ = try daemon.request("START q interval=1h")
        let commits = try Self.counter(daemon, "monkeyd_control_commits_total")
        let records = try Self.counter(daemon, "monkeyd_control_records_total")
        let connection = try daemon.connect()
        let lines = (1...1000).map { "SET q monkeys=\($0 % 9 + 1)\n" }.joined()
        try connection.send(Array(lines.utf8))
        for _ in 1...1000 { #expect(try connection.readResponse() == ["OK updated q"]) }
        let shared = try Self.counter(daemon, "monkeyd_control_commits_total") - commits
        #expect(shared >= 1 && shared <= 20, "1,000 pipelined changes took \(shared) syncs")
        let written = try Self.counter(daemon, "monkeyd_control_records_total") - records
        #expect(written >= shared && written <= 2 * shared, "\(written) records for \(shared) groups of one session")
        #expect(try fields(try daemon.request("STATUS q")[0])["monkeys"] == "2", "the last change holds")
        try daemon.stop(signal: SIGKILL)
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(try fields(try again.request("STATUS q")[0])["monkeys"] == "2", "the last change holds after a crash")
    }

    /// kill -9 in the middle of a storm of 20,000 pipelined changes from 50
    /// connections: after the restart each session shows its last
    /// acknowledged change or a later one it was sent, whole (the monkeys
    /// and the target of one change together), never an earlier one.
    @Test func aStormKilledMidwayLosesNoAcknowledgedChangeAndHalvesNone() throws {
        let state = TemporaryDirectory()
        let daemon = try DaemonProcess(configuration: "max_clients = 64\n", stateDirectory: state.path)
        let connections = 50
        // Enough changes that the storm outlasts the kill on a loaded machine:
        // the kill comes at a tenth of 400 changes a connection.
        let changes = 4000
        for index in 0..<connections { _ = try daemon.request("START c\(index) interval=1h") }
        final class Acknowledged: @unchecked Sendable {
            private let lock = NSLock()
            private var last: [Int]
            init(_ count: Int) { last = [Int](repeating: 0, count: count) }
            func set(_ index: Int, _ value: Int) { lock.withLock { last[index] = value } }
            var values: [Int] { lock.withLock { last } }
            var total: Int { values.reduce(0, +) }
        }
        final class Client: @unchecked Sendable {
            let connection: ClientConnection
            init(_ connection: ClientConnection) { self.connection = connection }
        }
        let acknowledged = Acknowledged(connections)
        var threads: [Thread] = []
        for index in 0..<connections {
            let client = Client(try daemon.connect())
            let lines = (1...changes).map { "SET c\(index) monkeys=\($0) target=t\($0)\n" }.joined()
            let thread = Thread {
                try? client.connection.send(Array(lines.utf8))
                var change = 0
                while let line = try? client.connection.readLine(), line.hasPrefix("OK updated c\(index)") {
                    change += 1
                    acknowledged.set(index, change)
                }
            }
            thread.start()
            threads.append(thread)
        }
        // Midway: some changes acknowledged, not all.
        #expect(eventually { acknowledged.total >= connections * 40 })
        try daemon.stop(signal: SIGKILL)
        let seen = acknowledged.values
        #expect(seen.reduce(0, +) < connections * changes, "the kill came after the storm")

        let again = try DaemonProcess(configuration: "max_clients = 64\n", stateDirectory: state.path)
        for index in 0..<connections {
            let status = try fields(try again.request("STATUS c\(index)")[0])
            let monkeys = Int(status["monkeys"] ?? "") ?? -1
            #expect(monkeys >= seen[index], "c\(index): acknowledged change \(seen[index]) lost")
            #expect(monkeys <= changes)
            // Monkeys and target come from one change (or both from the START).
            let whole = status["target"] == "t\(monkeys)" || (monkeys == 1 && status["target"] == "")
            #expect(whole, "c\(index): \(status)")
        }
    }

    /// A group torn by a crash between its write and its sync (only part
    /// of it reached the disk) is cut cleanly at start-up; it was never
    /// acknowledged.
    @Test func aTornGroupIsCutCleanly() throws {
        let state = TemporaryDirectory()
        let first = try DaemonProcess(stateDirectory: state.path)
        _ = try first.request("START a interval=1h target=kept monkeys=8")
        _ = try first.request("STOP a")
        try first.stop(signal: SIGKILL)
        let directory = state.path + "/sessions"
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("control.") }.max())
        // What a torn write of a change leaves: the start of a record, where
        // the records end and the zeros the log keeps ahead of them begin.
        let path = "\(directory)/\(segment)"
        let written = try #require(FileManager.default.contents(atPath: path))
        let end = ControlFile.decodeLog(Array(written)).validLength
        #expect(written.count > end, "room ahead of the records")
        #expect(written[end...].allSatisfy { $0 == 0 })
        var record: [UInt8] = []
        ControlFile.append(.deleted(try #require(SessionName("a"))), to: &record)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64(end))
        try handle.write(contentsOf: Data(record.prefix(record.count - 2)))
        try handle.close()

        let second = try DaemonProcess(stateDirectory: state.path)
        #expect(second.startupLog.contains("cut it there"))
        #expect(try fields(try second.request("STATUS a")[0])["target"] == "kept")
        #expect(try second.request("SET a target=next") == ["OK updated a"])
        try second.stop(signal: SIGKILL)
        let third = try DaemonProcess(stateDirectory: state.path)
        #expect(!third.startupLog.contains("cut it there"))
        #expect(try fields(try third.request("STATUS a")[0])["target"] == "next")
    }

    /// Past `control_log_size`, the log is compacted into a snapshot and
    /// the old segments go; nothing is lost on the way, crash or not.
    @Test func theControlLogIsCompactedIntoASnapshot() throws {
        let state = TemporaryDirectory()
        let configuration = "control_log_size = 64K\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let connection = try daemon.connect()
        _ = try connection.request("START q interval=1h")
        let directory = state.path + "/sessions"
        func segments() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
                $0.hasPrefix("control.")
            }
        }
        let first = segments()
        // One change at a time: a group's changes of one session are one record.
        for round in 0..<6 {
            for index in 1...500 {
                _ = try connection.request("SET q monkeys=\(index % 9 + 1) target=\(round)-\(index)")
            }
        }
        #expect(eventually { !segments().isEmpty && Set(segments()).isDisjoint(with: first) })
        #expect(eventually { segments().count == 1 }, "\(segments())")
        let total = segments().reduce(0) { $0 + (EntriesJournalTests.size("\(directory)/\($1)") ?? 0) }
        #expect(total < 3 * (64 << 10))
        let before = try daemon.request("STATUS q")
        try daemon.stop(signal: SIGKILL)
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        #expect(try again.request("STATUS q") == before)
        #expect(try fields(before[0])["target"] == "5-500")
    }

    /// The snapshot carries the event ids' reservation: after compactions
    /// removed the segments that held it, a crash still never gives an id twice.
    @Test func eventIdsAreNotGivenTwiceAfterACompactionAndACrash() throws {
        let state = TemporaryDirectory()
        // Events reach the events file only at a sync: until then, only the
        // reservation in the control log (and then the snapshot) covers them.
        let configuration = "control_log_size = 64K\nsync_interval = 1h\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let connection = try daemon.connect()
        _ = try connection.request("START q interval=1h")
        let directory = state.path + "/sessions"
        func segments() -> Set<String> {
            Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
                    $0.hasPrefix("control.")
                })
        }
        let first = segments()
        // One change at a time: a group's changes of one session are one record.
        for round in 0..<4 {
            for index in 1...500 {
                _ = try connection.request("SET q monkeys=\(index % 9 + 1) target=\(round)-\(index)")
            }
        }
        #expect(eventually { !segments().isEmpty && segments().isDisjoint(with: first) }, "compacted")
        let given = try daemon.request("EVENTS after=0\n").dropLast().compactMap { UInt64(try fields($0)["id"] ?? "") }
        let newest = try #require(given.max())
        #expect(newest > 2000)
        try daemon.stop(signal: SIGKILL)
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        // Unsynced events and skipped ids both count as lost to this cursor.
        let restored = try again.request("EVENTS after=\(newest)\n").dropLast().map(fields).filter {
            $0["type"] == "event"
        }
        #expect(restored.first?["kind"] == "restored", "\(restored)")
        let ids = restored.compactMap { UInt64($0["id"] ?? "") }
        #expect(!ids.isEmpty && ids.allSatisfy { $0 > newest }, "\(ids) after \(newest)")
        let all = try again.request("EVENTS after=0\n").dropLast().compactMap { UInt64(try fields($0)["id"] ?? "") }
        #expect(Set(all).count == all.count, "no id twice in what is kept")
    }
}
