import Foundation
import Glibc
import MonkeyShell
import Testing

/// `make run` (scripts/demo) in a real terminal: top over three demo
/// sessions, and q or Ctrl-C stops everything, the daemon too.
@Suite("make run", .enabled(if: TmuxSession.isAvailable, "tmux is not installed (.ci/run installs it)"))
struct DemoTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/demo").path

    @Test(arguments: ["q", "C-c"])
    func topOverThreeSessionsThenEverythingStops(key: String) throws {
        let scratch = TemporaryDirectory()
        let socket = scratch.path + "/monkeyd/monkeyd.sock"
        let pane = try TmuxSession(
            columns: 110, rows: 12,
            script: "'\(Self.script)' '\(Binaries.directory)'; echo $? > status",
            environment: ["XDG_RUNTIME_DIR": scratch.path, "TMPDIR": scratch.path])
        func row(_ screen: [String], _ name: String) -> String? {
            screen.first { $0.dropFirst().hasPrefix(name + " ") }
        }
        let screen = try pane.waitFor("the three sessions") { screen in
            ["hi", "cat", "hamlet"].allSatisfy { row(screen, $0)?.contains("running") == true }
        }
        #expect(screen[0].contains("3 sessions, 3 typing"))
        #expect(row(screen, "hi")?.contains("~4.5 s") == true, "a hit every few seconds")
        #expect(row(screen, "cat")?.contains("~2.1 min") == true, "one every couple of minutes")
        #expect(row(screen, "hamlet")?.contains("~2.6e16 y") == true, "hopeless")
        // A hit is about 1 entry in 45, 10 entries a second: one within a
        // minute but for a chance of 1 in 10^5.
        try pane.waitFor("a hit of hi", timeout: 60) { screen in
            guard let fields = row(screen, "hi")?.split(separator: " ") else { return false }
            return fields.count > 6 && Int(fields[6]).map { $0 > 0 } == true
        }
        try pane.press(key)
        #expect(try pane.waitForFile("status") == "0\n")
        // The daemon stopped (it removes its socket) and the demo's state went with it.
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(throws: (any Error).self) { try ClientConnection(path: socket) }
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(!left.contains { $0.hasPrefix("monkeyd-demo.") }, "\(left)")
    }
}
