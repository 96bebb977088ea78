import Foundation
import Testing

/// A state directory written by the first release (a state file per
/// session, journal format 2 with fresh starts, entries files without an
/// epoch), as its daemon left it after kill -9 (Fixtures/first-release,
/// made by scripts/make-first-release-fixture): the first start upgrades
/// it, and every session is back as that daemon last showed it.
@Suite("Upgrade from the first release")
struct UpgradeTests {
    static let fixture = JournalTests.repository.appendingPathComponent(
        "Tests/MonkeyIntegrationTests/Fixtures/first-release")

    /// The JSON Lines the first release's monkeyctl printed, as objects.
    static func recorded(_ file: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: fixture.appendingPathComponent(file), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The same objects from this release's monkeyctl.
    static func current(_ client: MonkeyctlClient, _ arguments: String...) throws -> [[String: Any]] {
        let result = try client.run(["--json"] + arguments)
        #expect(result.status == 0, "\(result)")
        return try result.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// What the first release showed of a session, as text to compare.
    static func shown(_ object: [String: Any]) -> String {
        [
            "name", "state", "monkeys", "interval", "alphabet", "target", "typed", "entries", "hits", "best", "id",
            "number", "text", "hit",
        ]
        .compactMap { key in object[key].map { "\(key)=\($0)" } }.joined(separator: " ")
    }

    /// A copy of the fixture's state directory.
    static func copiedState() throws -> TemporaryDirectory {
        let state = TemporaryDirectory()
        try FileManager.default.copyItem(
            atPath: fixture.appendingPathComponent("sessions").path, toPath: state.path + "/sessions")
        return state
    }

    @Test func theFirstStartUpgradesAndEverySessionIsBack() throws {
        let state = try Self.copiedState()
        let statuses = try Self.recorded("status.jsonl")
        for round in 0..<2 {
            let daemon = try DaemonProcess(stateDirectory: state.path)
            let client = MonkeyctlClient(daemon)
            #expect(daemon.startupLog.contains("upgrading") == (round == 0), "round \(round)")
            // The stopped sessions exactly; the deleted one is gone.
            let now = try Self.current(client, "status")
            #expect(now.map { $0["name"] as? String } == ["cleared", "quiet", "still", "typing"])
            for name in ["cleared", "quiet", "still"] {
                let before = statuses.first { $0["name"] as? String == name }
                let after = now.first { $0["name"] as? String == name }
                #expect(before.map(Self.shown) == after.map(Self.shown), "\(name), round \(round)")
                let log = try Self.recorded("\(name).log.jsonl").map(Self.shown)
                #expect(try Self.current(client, "log", name).map(Self.shown) == log, "\(name), round \(round)")
            }
            // The typing session types on: every entry the first release
            // showed is there, and new ones follow with greater ids.
            let typed = try Self.recorded("typing.log.jsonl")
            let typing = try Self.current(client, "log", "typing")
            #expect(typing.prefix(typed.count).map(Self.shown) == typed.map(Self.shown), "round \(round)")
            #expect(now.last?["state"] as? String == "running")
            let lastID = typing.last?["id"] as? Int ?? 0
            #expect(try eventually { try Self.current(client, "log", "typing").last?["id"] as? Int ?? 0 > lastID })
            #expect(try daemon.stop() == 0)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path + "/sessions")
        #expect(!files.contains { $0.hasSuffix(".state") }, "\(files)")
        #expect(files.contains("snapshot"))
        #expect(!files.contains("gone.entries"))
    }

    /// Killed again right after the upgrade, the directory is still whole.
    @Test func aCrashRightAfterTheUpgradeLosesNothing() throws {
        let state = try Self.copiedState()
        let first = try DaemonProcess(stateDirectory: state.path)
        // Typing since the upgrade may be lost to the crash; the rest may not.
        let before = try first.request("STATUS").filter { !$0.contains("name=typing") }
        let logs = try ["cleared", "still"].map { try first.request("LOG \($0)") }
        try first.stop(signal: SIGKILL)
        let again = try DaemonProcess(stateDirectory: state.path)
        #expect(!again.startupLog.contains("upgrading"))
        #expect(try again.request("STATUS").filter { !$0.contains("name=typing") } == before)
        #expect(try ["cleared", "still"].map { try again.request("LOG \($0)") } == logs)
    }
}
