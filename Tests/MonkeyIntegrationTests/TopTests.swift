import Foundation
import Glibc
import MonkeyShell
import Testing

/// `monkeyctl top` in a real terminal (tmux), driven by keys and read off
/// the screen as a person would; and off a terminal, its one table.
@Suite("monkeyctl top", .enabled(if: TmuxSession.isAvailable, "tmux is not installed (.ci/run installs it)"))
struct TopTests {
    /// `monkeyctl --socket PATH top` as a pane's script line.
    static func top(_ daemon: DaemonProcess, _ arguments: String = "") -> String {
        "'\(Binaries.monkeyctl)' --socket '\(daemon.socketPath)' top \(arguments)"
    }

    /// top in a pane of `columns` × `rows`, its status written to `status` when it ends.
    static func launch(
        _ daemon: DaemonProcess, _ arguments: String = "", columns: Int = 100, rows: Int = 20,
        environment: [String: String] = [:]
    ) throws -> TmuxSession {
        let pane = try TmuxSession(
            columns: columns, rows: rows,
            script: "stty -a > before; \(top(daemon, arguments)); echo $? > status; stty -a > after",
            environment: environment)
        try pane.waitFor("top's header") { $0.first?.hasPrefix("monkeyd 0.1.0 |") == true }
        return pane
    }

    /// The row of a session (the line that starts with its name, after the marker).
    static func row(_ screen: [String], _ name: String) -> String? {
        screen.first { $0.dropFirst().hasPrefix(name + " ") }
    }

    @Test func aSessionStartedElsewhereAppears() throws {
        let daemon = try DaemonProcess()
        let pane = try Self.launch(daemon)
        try pane.waitFor("no sessions") { $0.contains { $0.hasPrefix("no sessions") } }
        let started = try MonkeyctlClient(daemon).run("start", "alpha", "--target", "ab", "--monkeys", "4")
        #expect(started.status == 0)
        let screen = try pane.waitFor("alpha's row") { Self.row($0, "alpha")?.contains("running") == true }
        #expect(Self.row(screen, "alpha")?.hasPrefix(">alpha ") == true, "the only session is selected")
        #expect(screen[0].contains("1 session, 1 typing"))
    }

    /// With `-d 1h` top asks for STATUS once, then only when an event
    /// says that something changed: what happens elsewhere reaches the
    /// screen through the EVENTS stream alone. A session started by
    /// another client appears; its hits count up, each time beside the
    /// TYPED of the same answer (never more hits than entries typed); a
    /// stop shows at once.
    @Test func eventsRedrawAtOnceWithoutPolling() throws {
        let daemon = try DaemonProcess()
        let pane = try Self.launch(daemon, "-d 1h", columns: 120)
        try pane.waitFor("no sessions") { $0.contains { $0.hasPrefix("no sessions") } }
        let client = MonkeyctlClient(daemon)
        #expect(try client.run("start", "alpha", "--target", "a", "--monkeys", "8", "--interval", "20ms").status == 0)
        try pane.waitFor("alpha's row") { Self.row($0, "alpha")?.contains("running") == true }
        // About one entry in four is a hit, 50 entries a second.
        var rows: [(typed: Int, hits: Int)] = []
        try pane.waitFor("hits counting up") { screen in
            guard let fields = Self.row(screen, "alpha")?.split(separator: " "), fields.count > 6,
                let typed = Int(fields[5].replacingOccurrences(of: ",", with: "")),
                let hits = Int(fields[6].replacingOccurrences(of: ",", with: ""))
            else { return false }
            rows.append((typed, hits))
            return hits >= 5
        }
        #expect(rows.allSatisfy { $0.hits <= $0.typed }, "one answer's figures: \(rows)")
        #expect(try client.run("stop", "alpha").status == 0)
        try pane.waitFor("alpha stopped") { Self.row($0, "alpha")?.contains("stopped") == true }
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }

    /// A row's figures come from one answer. Against a daemon played by
    /// the test: the first STATUS says `cat` typed nothing yet; an event
    /// then tells of best progress `c`. top does not show that best beside
    /// TYPED 0 (what no entry typed could have made): it asks for STATUS,
    /// and shows best and TYPED together from the answer.
    @Test func aRowShowsTheFiguresOfOneAnswer() throws {
        let fake = try MonkeyctlFakeDaemon()
        let pane = try TmuxSession(
            columns: 120, rows: 12,
            script: "'\(Binaries.monkeyctl)' --socket '\(fake.socketPath)' top -d 1h; echo $? > status")
        let main = try fake.accept()
        func answer(_ status: String) throws {
            while let line = try main.readLine() {
                switch line {
                case "HELLO": try main.send("OK monkeyd version=0.1.0 protocol=1\n")
                case "METRICS": try main.send("OK\n")
                case "STATUS":
                    try main.send(status + "\nOK\n")
                    return
                default: throw TestFailure("unexpected request \(line)")
                }
            }
            throw TestFailure("top hung up")
        }
        func cat(typed: Int, best: String) -> String {
            "session name=cat state=running monkeys=16 interval=100ms alphabet=abcdefghijklmnopqrstuvwxyz "
                + "target=cat typed=\(typed) entries=\(typed) hits=0 best=\"\(best)\" p_hit=8.047e-04 "
                + "expected_entries=1243 expected_seconds=124.3 chance=\(typed == 0 ? "0" : "4.016e-03")"
        }
        try answer(cat(typed: 0, best: ""))
        let first = try pane.waitFor("cat's first row") { Self.row($0, "cat")?.contains("cat 0/3") == true }
        #expect(Self.row(first, "cat")?.split(separator: " ")[5] == "0", "\(first)")
        let events = try fake.accept()
        #expect(try events.readLine() == "EVENTS")
        try events.send("event id=1 time=2026-12-01T00:00:00.100Z kind=best session=cat best=c\n")
        // The event asks for STATUS (with -d 1h, nothing else would).
        try answer(cat(typed: 5, best: "c"))
        let screen = try pane.waitFor("best and typed of the second answer") {
            Self.row($0, "cat")?.contains("cat 1/3") == true
        }
        #expect(Self.row(screen, "cat")?.split(separator: " ")[5] == "5", "\(screen)")
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }

    @Test func spaceStopsTheSelectedSessionAndStartsItAgain() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha")
        _ = try daemon.request("START beta")
        let pane = try Self.launch(daemon)
        try pane.waitFor("both rows") { Self.row($0, "beta")?.contains("running") == true }
        try pane.press("Down", "Space")
        try pane.waitFor("beta stopped") { Self.row($0, "beta")?.contains("stopped") == true }
        #expect(try fields(daemon.request("STATUS beta")[0])["state"] == "stopped")
        #expect(try fields(daemon.request("STATUS alpha")[0])["state"] == "running")
        try pane.press("Space")
        try pane.waitFor("beta running again") { Self.row($0, "beta")?.contains("running") == true }
    }

    @Test func enterShowsTheLiveTailAndHidesIt() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha interval=20ms target=a")
        let pane = try Self.launch(daemon)
        try pane.press("Enter")
        try pane.waitFor("entries in the tail pane") { screen in
            guard let rule = screen.firstIndex(where: { $0.hasPrefix("-- tail of alpha") }) else { return false }
            return screen[(rule + 1)...].contains {
                $0.range(of: #"^[0-9]+\. [a-z]"#, options: .regularExpression) != nil
            }
        }
        // Eight monkeys and the target `a`: about one entry in four is a hit.
        try pane.waitFor("a hit marked in the pane") { screen in
            screen.contains { $0.range(of: #"^[0-9]+\. [a-z]*a[a-z]*  \*hit\*$"#, options: .regularExpression) != nil }
        }
        try pane.press("Enter")
        try pane.waitFor("the pane gone") { !$0.contains { $0.hasPrefix("-- tail of") } }
    }

    @Test func oChangesTheOrder() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha interval=1h")
        _ = try daemon.request("STOP alpha")
        _ = try daemon.request("START beta interval=10ms")
        let pane = try Self.launch(daemon)
        func order(_ screen: [String]) -> [String] {
            screen.compactMap { line in ["alpha", "beta"].first { line.dropFirst().hasPrefix($0 + " ") } }
        }
        var screen = try pane.waitFor("by name") { order($0) == ["alpha", "beta"] }
        #expect(screen[1].contains("o sort by rate"), "what o does next: \(screen[1])")
        try pane.press("o")
        screen = try pane.waitFor("by rate") { order($0) == ["beta", "alpha"] }
        #expect(screen[1].contains("o sort by typed"), "\(screen[1])")
        #expect(screen.last == "row 2 of 2, sorted by rate", "the selection stayed on alpha, and says so")
        try pane.press("x")
        screen = try pane.waitFor("a hint") { $0.last?.hasPrefix("'x' does nothing here") == true }
        #expect(screen.last == "'x' does nothing here; keys: up/down, PgUp/PgDn, space, c, enter, o, q")
    }

    @Test func cThenYClears() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha interval=1ms")
        #expect(try eventually { try Int(fields(daemon.request("STATUS alpha")[0])["typed"] ?? "0") ?? 0 >= 50 })
        _ = try daemon.request("STOP alpha")
        let pane = try Self.launch(daemon)
        try pane.waitFor("alpha stopped") { Self.row($0, "alpha")?.contains("stopped") == true }
        try pane.press("c")
        try pane.waitFor("the question") { $0.contains { $0.hasPrefix("clear alpha? Every entry goes") } }
        #expect(try fields(daemon.request("STATUS alpha")[0])["typed"] != "0", "nothing cleared before y")
        try pane.press("y")
        try pane.waitFor("cleared") { $0.contains { $0.hasPrefix("cleared alpha") } }
        #expect(try fields(daemon.request("STATUS alpha")[0])["typed"] == "0")
    }

    /// `q` leaves the terminal as it was: the same `stty -a`, the shell's
    /// screen back (top drew on the alternate screen), status 0.
    @Test(arguments: ["q", "C-c"])
    func quittingRestoresTheTerminal(key: String) throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha")
        let pane = try TmuxSession(
            columns: 100, rows: 20,
            script: "echo 'before top'; stty -a > before; \(Self.top(daemon)); echo $? > status; stty -a > after")
        try pane.waitFor("top's header") { $0.first?.hasPrefix("monkeyd 0.1.0 |") == true }
        try pane.press(key)
        #expect(try pane.waitForFile("status") == "0\n")
        #expect(try pane.waitForFile("after") == pane.waitForFile("before"))
        let screen = try pane.screen()
        #expect(screen.first == "before top")
        #expect(!screen.contains { $0.contains("monkeyd 0.1.0 |") })
    }

    /// SIGTERM, and a Swift runtime trap (SIGILL or SIGTRAP; sent here as
    /// the signal, which the guard treats like the real thing): the
    /// terminal is restored and the process dies of the signal.
    @Test(arguments: [SIGTERM, SIGHUP, SIGILL, SIGTRAP, SIGSEGV])
    func aSignalOrACrashRestoresTheTerminal(signal: Int32) throws {
        let daemon = try DaemonProcess()
        let pane = try TmuxSession(
            columns: 100, rows: 20,
            script: """
                stty -a > before
                sh -c 'echo $$ > pid; exec "$0" "$@"' '\(Binaries.monkeyctl)' --socket '\(daemon.socketPath)' top
                echo $? > status; stty -a > after
                """, environment: ["SWIFT_BACKTRACE": "enable=no"])
        try pane.waitFor("top's header") { $0.first?.hasPrefix("monkeyd 0.1.0 |") == true }
        let pid = try #require(Int32(pane.waitForFile("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, signal)
        let status = try pane.waitForFile("status")
        if Binaries.isSanitized && signal == SIGSEGV {
            #expect(status != "0\n", "the sanitizer reports the fault and exits with its own status")
        } else {
            #expect(status == "\(128 + signal)\n")
        }
        #expect(try pane.waitForFile("after") == pane.waitForFile("before"))
        #expect(!(try pane.screen()).contains { $0.contains("monkeyd 0.1.0 |") })
    }

    @Test func aResizeRedrawsToTheNewWidth() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha target=\"to be or not to be\" monkeys=3")
        let pane = try Self.launch(daemon, columns: 80, rows: 20)
        var screen = try pane.waitFor("alpha's row") { Self.row($0, "alpha") != nil }
        #expect(!screen[2].contains("INTERVAL"), "80 columns leave out the interval")
        try pane.resize(columns: 140, rows: 30)
        screen = try pane.waitFor("all columns") { $0[2].contains("INTERVAL") && $0[2].contains("MONKEYS") }
        #expect(screen.count == 30)
        try pane.resize(columns: 40, rows: 12)
        screen = try pane.waitFor("the narrow table") { !$0[2].contains("RATE/s") && $0[2].contains("BEST") }
        #expect(screen.allSatisfy { $0.count <= 40 })
        #expect(Self.row(screen, "alpha")?.contains("running") == true)
    }

    @Test func aDaemonRestartShowsTheBannerAndRecovers() throws {
        let first = try DaemonProcess()
        _ = try first.request("START alpha interval=1h")
        let pane = try Self.launch(first, columns: 160)
        try pane.waitFor("alpha") { Self.row($0, "alpha") != nil }
        try first.stop()
        let gone = try pane.waitFor("the banner") { $0.first?.hasPrefix(" monkeyd is gone") == true }
        #expect(gone[0].contains("reconnecting to \(first.socketPath)"))
        #expect(Self.row(gone, "alpha") != nil, "the last figures stay")
        let second = try DaemonProcess(arguments: ["--socket", first.socketPath], stateDirectory: first.stateDirectory)
        let back = try pane.waitFor("the header again") { $0.first?.hasPrefix("monkeyd 0.1.0 | up") == true }
        #expect(back.last?.hasPrefix("reconnected to monkeyd") == true || Self.row(back, "alpha") != nil)
        // The new daemon listens where the first did.
        _ = try ClientConnection(path: first.socketPath).request("START beta interval=1h")
        #expect(second.pid != first.pid)
        try pane.waitFor("beta, from the new daemon") { Self.row($0, "beta") != nil }
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }

    /// A user who may not change sessions sees the daemon's refusal on the
    /// status line, and top goes on.
    @Test(.enabled(if: geteuid() == 0, "needs root to run top as another user"))
    func aRefusalIsShownNotACrash() throws {
        let daemon = try DaemonProcess(configuration: "socket_mode = 0666\n")
        _ = try daemon.request("START alpha")
        let pane = try TmuxSession(
            columns: 120, rows: 20,
            script: "setpriv --reuid=65533 --regid=65533 --clear-groups \(Self.top(daemon)); echo $? > status")
        try pane.waitFor("alpha") { Self.row($0, "alpha")?.contains("running") == true }
        try pane.press("Space")
        let screen = try pane.waitFor("the refusal") { $0.contains { $0.hasPrefix("denied: ") } }
        #expect(Self.row(screen, "alpha")?.contains("running") == true)
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }

    @Test func noColorMeansNoColours() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha target=ab monkeys=4")
        let colored = try Self.launch(daemon)
        try colored.waitFor("alpha") { Self.row($0, "alpha") != nil }
        #expect(try colored.screenWithAttributes().contains("\u{1B}[32m"))
        let plain = try Self.launch(daemon, environment: ["NO_COLOR": "1"])
        try plain.waitFor("alpha") { Self.row($0, "alpha") != nil }
        let attributes = try plain.screenWithAttributes()
        #expect(attributes.range(of: "\u{1B}\\[(3[0-7]|9[0-7]|38;)", options: .regularExpression) == nil)
        #expect(attributes.contains("\u{1B}[7m"), "the selected row is still in reverse video")
    }

    /// Off a terminal: one table, sorted by name, and status 0; `--once`
    /// does the same on a terminal.
    @Test func aPipeGetsOneTable() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START beta interval=1h target=monkey")
        _ = try daemon.request("START alpha interval=1h target=ab monkeys=4")
        let result = try MonkeyctlClient(daemon).run("top")
        #expect(result.status == 0)
        #expect(result.lines.count == 4)
        #expect(result.lines[0].hasPrefix("monkeyd 0.1.0 | up "))
        #expect(result.lines[1].hasPrefix("NAME  STATE"))
        #expect(result.lines[2].hasPrefix("alpha running"))
        #expect(result.lines[3].hasPrefix("beta  running"))
        #expect(result.lines[3].contains("never monkey 0/6"))
        #expect(!result.output.contains("\u{1B}"))
        let pane = try TmuxSession(columns: 60, rows: 10, script: "\(Self.top(daemon, "--once")); echo $? > status")
        #expect(try pane.waitForFile("status") == "0\n")
        let screen = try pane.screen()
        #expect(screen[1].hasPrefix("NAME"))
        #expect(screen.allSatisfy { $0.count <= 60 })
    }

    @Test func anAbsentDaemonIsStatus3() throws {
        let directory = TemporaryDirectory()
        let result = try MonkeyctlProcess.run(["--socket", directory.path + "/none.sock", "top"])
        #expect(result.status == 3)
        #expect(result.error.contains("is monkeyd running?"))
    }
}
