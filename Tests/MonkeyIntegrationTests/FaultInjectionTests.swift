import Foundation
import MonkeyShell
import Testing

/// The daemon under libfiu (`fiu-run -x`, Debian fiu-utils): writes that
/// fail or are cut short, syncs, renames, opens, sends and receives that
/// fail at random while a client churns changes. It never dies, answers
/// every change `OK` or `ERR storage-error` (or the connection closes),
/// serves again once the faults stop, and after kill -9 every change it
/// acknowledged is there.
@Suite("Faults injected with libfiu")
struct FaultInjectionTests {
    static func tool(_ name: String) -> String? {
        ["/usr/bin", "/usr/local/bin", "/bin"].map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
    static let fiuRun = tool("fiu-run")
    static let fiuControl = tool("fiu-ctrl")
    static let isAvailable = fiuRun != nil && fiuControl != nil

    /// The failure points of libfiu's POSIX preload, each failing one call in `probability`
    /// (`pread`: the fold reading the journal).
    static let faults = [
        "posix/io/rw/write", "posix/io/rw/write/reduce", "posix/io/rw/pwrite", "posix/io/rw/pwrite/reduce",
        "posix/io/sync/fsync", "posix/io/sync/fdatasync", "posix/io/dir/rename", "posix/io/oc/open",
        "posix/io/net/send", "posix/io/net/recv", "posix/io/rw/pread",
    ]
    static let sessions = (0..<6).map { "f\($0)" }

    let control = TemporaryDirectory()
    var controlPrefix: String { control.path + "/fiu-ctrl" }

    func setFaults(_ on: Bool, of daemon: DaemonProcess, probability: Double = 0.05) throws {
        guard let fiuControl = Self.fiuControl else { return }
        var arguments = ["-f", controlPrefix]
        for name in Self.faults {
            arguments += ["-c", on ? "enable_random name=\(name),probability=\(probability)" : "disable name=\(name)"]
        }
        let (status, output) = try runToExit(arguments + ["\(daemon.pid)"], executable: fiuControl)
        try #require(status == 0, "fiu-ctrl \(arguments) exited \(status): \(output)")
    }

    /// One request on a fresh connection: its lines, or nil when the
    /// connection failed or closed before the answer (a send or recv fault).
    static func attempt(_ daemon: DaemonProcess, _ line: String) -> [String]? {
        guard let connection = try? daemon.connect() else { return nil }
        return try? connection.request(line)
    }

    /// The session's monkeys as the daemon has them now (nil: no such
    /// session), asking again until an answer gets through.
    static func readBack(_ daemon: DaemonProcess, _ name: String) throws -> Int? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard let lines = attempt(daemon, "STATUS \(name)") else { continue }
            if lines.last?.hasPrefix("ERR no-such-session") == true { return nil }
            guard lines.last == "OK", let line = lines.first, let monkeys = try fields(line)["monkeys"] else {
                continue
            }
            return Int(monkeys)
        }
        throw TestFailure("STATUS \(name) got no answer in 30 s; \(daemon.whereItWaits())")
    }

    /// What the daemon logged besides the changes it made.
    static func trouble(_ daemon: DaemonProcess) -> String {
        let lines = daemon.standardError.split(separator: "\n").filter {
            !$0.contains("changed session") && !$0.contains("created and started") && !$0.contains("deleted session")
                && !$0.contains("cleared session")
        }
        return lines.suffix(30).joined(separator: "\n")
    }

    @Test(.enabled(if: isAvailable, "needs fiu-run and fiu-ctrl (Debian fiu-utils); skipped without them"))
    func failingCallsNeverKillTheDaemonNorLoseAnAcknowledgedChange() throws {
        let fiuRun = try #require(Self.fiuRun)
        let configuration = "sync_interval = 50ms\njournal_size = 64K\ncontrol_log_size = 64K\n"
        let daemon = try DaemonProcess(
            configuration: configuration,
            // Its writes (its log lines) fail from the start; the rest once it is ready.
            launcher: [
                fiuRun, "-x", "-f", controlPrefix, "-c", "enable_random name=posix/io/rw/write,probability=0.05",
            ])
        // What the client was told: each session's monkeys, none for a
        // session that does not exist; one whose answer was lost is read back.
        var acknowledged: [String: Int] = [:]
        try setFaults(true, of: daemon)
        var random = SystemRandomNumberGenerator()
        var answers: [String: Int] = [:]
        for round in 0..<1_000 {
            let name = Self.sessions[round % Self.sessions.count]
            let monkeys = Int.random(in: 1...50, using: &random)
            let exists = acknowledged[name] != nil
            let line: String
            var after: Int?
            switch (exists, Int.random(in: 0..<4, using: &random)) {
            case (false, _):
                line = "START \(name) monkeys=\(monkeys) interval=1ms"
                after = monkeys
            case (true, 0):
                line = "DELETE \(name)"
                after = nil
            case (true, 1):
                line = "CLEAR \(name)"
                after = acknowledged[name]
            default:
                line = "SET \(name) monkeys=\(monkeys)"
                after = monkeys
            }
            guard let lines = Self.attempt(daemon, line), let status = lines.last else {
                // The answer was lost: what the daemon holds now is what counts.
                #expect(daemon.process.isRunning, "the daemon died: \(daemon.standardError.suffix(2000))")
                try #require(daemon.process.isRunning)
                acknowledged[name] = try Self.readBack(daemon, name)
                answers["lost", default: 0] += 1
                continue
            }
            if status == "OK" || status.hasPrefix("OK ") {
                acknowledged[name] = after
                answers["OK", default: 0] += 1
            } else {
                #expect(status.hasPrefix("ERR storage-error"), "\(line): \(lines)")
                answers["ERR", default: 0] += 1
            }
            try #require(daemon.process.isRunning, "the daemon died: \(daemon.standardError.suffix(2000))")
        }
        try setFaults(false, of: daemon)
        // It serves again: every change is taken once the disk works.
        for name in Self.sessions {
            let line = acknowledged[name] != nil ? "SET \(name) monkeys=7" : "START \(name) monkeys=7 interval=1ms"
            var answer: [String] = []
            let served = try eventually(timeout: 30) {
                answer = try daemon.request(line)
                return answer.last?.hasPrefix("OK") == true
            }
            #expect(served, "\(line) refused after the faults stopped: \(answer); \(Self.trouble(daemon))")
            if served { acknowledged[name] = 7 }
        }
        // Faults were injected, and changes got through between them.
        #expect(answers["OK", default: 0] > 0, "\(answers)")
        #expect(answers["ERR", default: 0] + answers["lost", default: 0] > 0, "\(answers)")
        // Killed, restarted without faults: every acknowledged change is there.
        try daemon.stop(signal: SIGKILL)
        let again = try DaemonProcess(configuration: configuration, stateDirectory: daemon.stateDirectory)
        var entriesRead = 0
        for name in Self.sessions {
            let monkeys = try Self.readBack(again, name)
            let (found, told) = (monkeys.map(String.init) ?? "none", acknowledged[name].map(String.init) ?? "none")
            #expect(
                monkeys == acknowledged[name],
                "session \(name): \(found) after the restart, acknowledged \(told); \(answers); \(Self.trouble(daemon))"
            )
            // Its entries read back whole and in order, whatever the faults cut.
            guard monkeys != nil else { continue }
            let log = try again.request("LOG \(name)")
            #expect(log.last?.hasPrefix("OK") == true, "LOG \(name): \(log.suffix(3))")
            let ids = try log.dropLast().map { try UInt64(fields($0)["id"] ?? "") ?? 0 }
            entriesRead += ids.count
            #expect(
                zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 } && !ids.contains(0),
                "LOG \(name): ids \(ids.prefix(20))")
        }
        #expect(entriesRead > 0, "no entries came back: \(Self.trouble(again))")
        try again.stop()
    }
}
