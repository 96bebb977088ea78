import Foundation
import Testing

/// A corpus session's coverage in a real terminal (tmux): `monkeyctl
/// coverage --work` shows the whole text, the covered characters in bold
/// colour; `top` shows its coverage and, under Enter, its works' table.
@Suite("Coverage in a terminal", .enabled(if: TmuxSession.isAvailable, "tmux is not installed (.ci/run installs it)"))
struct CoverageTerminalTests {
    static let text = "abbaabababbbaaab"

    /// A session that covered some of `text` (chunk 3 over `ab`) and
    /// stopped. Work `v` is shorter than a chunk: it has no window, so it
    /// stays uncovered however many entries are typed before the STOP.
    static func daemonWithCoverage(_ state: TemporaryDirectory) throws -> DaemonProcess {
        try CorpusSessionTests.makeCorpus("tiny", ["w.txt": Self.text, "v.txt": "bb"], in: state.path)
        let daemon = try DaemonProcess(stateDirectory: state.path)
        _ = try daemon.request("START c corpus=tiny chunk=3 alphabet=ab monkeys=3 interval=1ms seed=5")
        #expect(try eventually { try Int(fields(daemon.request("STATUS c")[0])["covered"] ?? "") ?? 0 > 0 })
        _ = try daemon.request("STOP c")
        return daemon
    }

    @Test func theWorksTextShowsWhatIsCoveredInBold() throws {
        let state = TemporaryDirectory()
        let daemon = try Self.daemonWithCoverage(state)
        let covered = try CorpusSessionTests.segments(daemon, "c", work: "w").covered
        let command = "'\(Binaries.monkeyctl)' --socket '\(daemon.socketPath)' coverage c --work w"
        let pane = try TmuxSession(columns: 80, rows: 10, script: "\(command); echo $? > status")
        #expect(try pane.waitForFile("status") == "0\n")
        let screen = try pane.screen()
        #expect(screen.first == Self.text, "on a terminal every character is shown: \(screen)")
        // Bold (SGR 1) opens each covered run, and nothing is bold when nothing is covered.
        let attributed = try pane.screenWithAttributes()
        let line = attributed.split(separator: "\n").first.map(String.init) ?? ""
        let runs = zip(covered, [false] + covered).filter { $0.0 && !$0.1 }.count
        #expect(runs > 0 && line.contains("\u{1B}[1m"), "covered runs in bold: \(line.debugDescription)")
        var plain = line
        while let escape = plain.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) {
            plain.removeSubrange(escape)
        }
        #expect(plain == Self.text)
    }

    @Test func topShowsCoverageAndTheWorksUnderEnter() throws {
        let state = TemporaryDirectory()
        let daemon = try Self.daemonWithCoverage(state)
        let status = try fields(daemon.request("STATUS c")[0])
        let covered = try CorpusSessionTests.segments(daemon, "c", work: "w").covered.filter { $0 }.count
        let percent = 100 * Double(covered) / Double(Self.text.count)
        let pane = try TopTests.launch(daemon, columns: 120, rows: 24)
        try pane.waitFor("the corpus session's row") { TopTests.row($0, "c")?.contains("%") == true }
        try pane.press("Enter")
        let screen = try pane.waitFor("the works' table") { screen in
            screen.contains { $0.hasPrefix("v ") } && screen.contains { $0.hasPrefix("w ") }
        }
        #expect(status["works"] == "2", "\(status)")
        // The percent as top rounds it: within a tenth of the works' own figure.
        let shown = screen.first { $0.hasPrefix("w ") }?.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        #expect(
            shown.map { abs($0 - percent) <= 0.1 } == true, "\(String(describing: shown)) for \(percent): \(screen)")
        #expect(screen.contains { $0.hasPrefix("v ") && $0.contains(" 0.0 %  [") }, "\(screen)")
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }
}
