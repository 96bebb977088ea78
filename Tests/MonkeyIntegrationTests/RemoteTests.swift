import Foundation
import Glibc
import Testing

/// `monkeyctl -H HOST`: every subcommand through a real sshd on the
/// loopback address, to two daemons behind it (the hosts `alpha` and
/// `beta` of an ssh configuration, each given its daemon's socket), with
/// what each daemon answers on its own socket to compare.
@Suite("monkeyctl -H", .enabled(if: SSHServer.isAvailable))
struct RemoteTests {
    final class Fleet {
        let server: SSHServer
        let alpha: DaemonProcess
        let beta: DaemonProcess
        /// `MONKEYCTL_SSH` for the hosts `alpha`, `beta`, `nowhere` (no
        /// daemon at its socket), `stranger` (a key sshd refuses).
        let ssh: String

        init() throws {
            server = try SSHServer()
            alpha = try DaemonProcess()
            beta = try DaemonProcess()
            ssh = try server.hostsConfiguration(
                [
                    "alpha": alpha.socketPath, "beta": beta.socketPath,
                    "nowhere": server.directory.path + "/none.sock", "stranger": alpha.socketPath,
                ], keys: ["stranger": server.strangerKey])
        }

        var environment: [String: String] { ["MONKEYCTL_SSH": ssh] }

        func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> MonkeyctlResult {
            try MonkeyctlProcess.run(arguments, environment: environment.merging(extra) { $1 })
        }

        func launch(_ arguments: [String]) throws -> MonkeyctlProcess {
            try MonkeyctlProcess(arguments, environment: environment)
        }

        /// What `arguments` give on `daemon`'s own socket.
        func direct(_ daemon: DaemonProcess, _ arguments: [String]) throws -> MonkeyctlResult {
            try MonkeyctlClient(daemon).run(arguments)
        }
    }

    /// start, status, tail, events and metrics through -H answer what the
    /// daemon answers on its socket; the session is on alpha, not on beta.
    @Test func commandsAnswerAsOnTheSocket() throws {
        let fleet = try Fleet()
        let started = try fleet.run(["-H", "alpha", "start", "s", "--seed", "7", "--interval", "1ms", "--monkeys", "2"])
        #expect(started.status == 0 && started.lines == ["started s"] && started.error == "", "\(started)")
        #expect(try eventually { try Int(fields(fleet.alpha.request("STATUS s")[0])["entries"] ?? "0") ?? 0 >= 20 })
        #expect(try fleet.run(["--host", "alpha", "stop", "s"]).status == 0)
        for arguments in [
            ["status"], ["status", "s"], ["tail", "-n", "5", "s"], ["log", "s"], ["events"], ["--json", "status"],
        ] {
            let remote = try fleet.run(["-H", "alpha"] + arguments)
            let local = try fleet.direct(fleet.alpha, arguments)
            #expect(remote.status == 0 && remote.error == "", "\(arguments): \(remote)")
            #expect(remote.output == local.output, "\(arguments)")
        }
        let beta = try fleet.run(["-H", "beta", "status"])
        #expect(beta.status == 0 && beta.lines == ["no sessions"], "\(beta)")
        let metrics = try fleet.run(["-H", "alpha", "metrics"])
        #expect(metrics.status == 0 && metrics.output.contains("monkeyd_"), "\(metrics)")
    }

    /// MONKEYCTL_HOST stands for -H; -H wins over it.
    @Test func theHostFromTheEnvironment() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START a interval=1h")
        let fromVariable = try fleet.run(["status"], environment: ["MONKEYCTL_HOST": "alpha"])
        #expect(fromVariable.status == 0 && fromVariable.output.hasPrefix("a "), "\(fromVariable)")
        let option = try fleet.run(["-H", "beta", "status"], environment: ["MONKEYCTL_HOST": "alpha"])
        #expect(option.status == 0 && option.lines == ["no sessions"], "\(option)")
        // Commands that need no daemon ignore it.
        let odds = try fleet.run(["odds", "--target", "ab"], environment: ["MONKEYCTL_HOST": "alpha"])
        #expect(odds.status == 0, "\(odds)")
    }

    /// With -H, --socket names the socket on the far side.
    @Test func theSocketOnTheFarSide() throws {
        let fleet = try Fleet()
        _ = try fleet.beta.request("START b interval=1h")
        let result = try fleet.run(["-H", "alpha", "--socket", fleet.beta.socketPath, "status"])
        #expect(result.status == 0 && result.output.hasPrefix("b "), "\(result)")
    }

    /// `tail -f` through ssh: entries as they come; Ctrl-C ends the stream
    /// with a line and its OK (ssh does not die of the Ctrl-C): status 0.
    @Test func followingUntilInterrupted() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START f interval=5ms")
        let follower = try fleet.launch(["-H", "alpha", "tail", "-f", "-n", "0", "f"])
        for _ in 0..<3 {
            let line = try #require(follower.readLine(), "an entry")
            #expect(line.first?.isNumber == true, "\(line)")
        }
        follower.signal(SIGINT)
        let result = try follower.finish()
        #expect(result.status == 0, "\(result)")
    }

    /// `events -f` and `wait` through ssh.
    @Test func eventsAndWait() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START w interval=1h")
        let events = try fleet.launch(["-H", "alpha", "events", "-f"])
        // Only what happens once the stream is open is followed: a session
        // is started until its start is seen.
        var seen: String?
        for attempt in 0..<20 where seen == nil {
            _ = try fleet.alpha.request("START e\(attempt) interval=1h")
            seen = events.readLine(timeout: 1)
        }
        #expect(seen?.hasPrefix("#") == true, "\(String(describing: seen))")
        let waiter = try fleet.launch(["-H", "alpha", "wait", "w", "--stopped", "--timeout", "30s"])
        #expect(waiter.waitUntilBlockedInRead(), "the wait is under way")
        _ = try fleet.alpha.request("STOP w")
        let waited = try waiter.finish()
        #expect(waited.status == 0 && waited.output.hasPrefix("w "), "\(waited)")
        var stopped = false
        while !stopped, let line = events.readLine() { stopped = line.contains(" w stopped") }
        #expect(stopped, "the stop, followed")
        events.signal(SIGINT)
        #expect(try events.finish().status == 0)
    }

    /// A host ssh cannot reach, a key the host refuses, a host without a
    /// daemon: the "cannot connect" status, with ssh's own message.
    @Test func whatCannotConnect() throws {
        let fleet = try Fleet()
        let closed = try MonkeyctlProcess.run(
            ["-H", "127.0.0.1", "status"],
            environment: ["MONKEYCTL_SSH": "ssh -F /dev/null -o BatchMode=yes -p \(try freeTCPPort())"])
        #expect(closed.status == 3 && closed.output == "", "\(closed)")
        #expect(
            closed.errorLines.last?.hasPrefix("monkeyctl: cannot connect to monkeyd on 127.0.0.1: ssh: connect to host")
                == true && closed.error.contains("Connection refused"), "\(closed)")
        let refused = try fleet.run(["-H", "stranger", "ping"])
        #expect(refused.status == 3, "\(refused)")
        #expect(
            refused.errorLines.last?.hasPrefix("monkeyctl: cannot connect to monkeyd on stranger: ") == true
                && refused.error.contains("Permission denied"), "\(refused)")
        let nowhere = try fleet.run(["-H", "nowhere", "ping"])
        #expect(nowhere.status == 3, "\(nowhere)")
        #expect(
            nowhere.errorLines.last?.hasPrefix(
                "monkeyctl: cannot connect to monkeyd on nowhere: cannot connect to monkeyd at "
                    + fleet.server.directory.path + "/none.sock: No such file or directory") == true, "\(nowhere)")
        let noSSH = try MonkeyctlProcess.run(
            ["-H", "alpha", "ping"], environment: ["MONKEYCTL_SSH": "/nonexistent/ssh"])
        #expect(
            noSSH.status == 3
                && noSSH.errorLines.last?.hasPrefix("monkeyctl: cannot connect to monkeyd on alpha: ") == true,
            "\(noSSH)")
    }

    /// ssh killed in the middle of `tail -f`: "connection lost", and the
    /// reason says how ssh ended.
    @Test func sshKilledMidStream() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START f interval=5ms")
        let follower = try fleet.launch(["-H", "alpha", "tail", "-f", "-n", "0", "f"])
        #expect(follower.readLine() != nil, "an entry")
        // MONKEYCTL_SSH runs under sh: the ssh among monkeyctl's descendants.
        let ssh = Self.descendants(of: follower.pid).filter { Self.command(of: $0) == "ssh" }
        #expect(ssh.count == 1, "one ssh: \(ssh)")
        for pid in ssh { kill(pid, SIGKILL) }
        let result = try follower.finish()
        #expect(result.status == 4, "\(result)")
        // sh, which ran ssh, says how it ended.
        #expect(result.errorLines.last == "monkeyctl: lost the connection to monkeyd on alpha: Killed", "\(result)")
    }

    /// `top` through ssh to a host without a daemon, in a terminal: the
    /// ordinary "cannot connect" error before the screen is taken.
    @Test(.enabled(if: TmuxSession.isAvailable))
    func topOfAHostWithoutADaemon() throws {
        let fleet = try Fleet()
        let pane = try TmuxSession(
            columns: 100, rows: 20,
            script: "MONKEYCTL_SSH=\(SSHServer.quoted(fleet.ssh)) '\(Binaries.monkeyctl)' -H nowhere top 2> error;"
                + " echo $? > status")
        #expect(try pane.waitForFile("status") == "3\n")
        #expect(try pane.waitForFile("error").hasPrefix("monkeyctl: cannot connect to monkeyd on nowhere: "))
        let once = try fleet.run(["-H", "alpha", "top", "--once"])
        #expect(once.status == 0 && once.output.contains("monkeyd 0.1.0"), "\(once)")
    }

    /// `top` through ssh leaves no zombie: the tail pane's ssh is reaped
    /// when the pane closes, and after an ssh is killed, top reconnects
    /// with new ones and reaps the old.
    @Test(.enabled(if: TmuxSession.isAvailable))
    func topReapsItsSSHChildren() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START one interval=20ms")
        let pane = try TmuxSession(
            columns: 100, rows: 20,
            script:
                "MONKEYCTL_SSH=\(SSHServer.quoted(fleet.ssh)) '\(Binaries.monkeyctl)' -H alpha top; echo $? > status")
        try pane.waitFor("one's row") { TopTests.row($0, "one") != nil }
        let panePID = try #require(
            Int32(
                pane.run(["display-message", "-p", "-t", TmuxSession.target, "#{pane_pid}"])
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        let top = try #require(Self.descendants(of: panePID).first { Self.command(of: $0) == "monkeyctl" })
        func children() -> [Int32] {
            let path = "/proc/\(top)/task/\(top)/children"
            return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: " ").compactMap {
                Int32($0)
            }
        }
        func zombies() -> [Int32] { children().filter { Self.state(of: $0) == "Z" } }
        // The connection for figures and the EVENTS stream.
        #expect(eventually { children().count == 2 && zombies().isEmpty }, "\(children())")
        try pane.press("Enter")
        try pane.waitFor("the tail pane") { $0.contains { $0.hasPrefix("-- tail of one") } }
        #expect(children().count == 3, "\(children())")
        try pane.press("Enter")
        try pane.waitFor("the pane gone") { !$0.contains { $0.hasPrefix("-- tail of") } }
        #expect(eventually { children().count == 2 && zombies().isEmpty }, "\(children())")
        // Each child is the sh that runs MONKEYCTL_SSH; the ssh under it holds the connection.
        let before = Set(children())
        for child in before {
            for ssh in Self.descendants(of: child) where Self.command(of: ssh) == "ssh" { kill(ssh, SIGKILL) }
        }
        #expect(
            eventually { children().count == 2 && Set(children()).isDisjoint(with: before) && zombies().isEmpty },
            "\(children())")
        try pane.waitFor("one's row again") { TopTests.row($0, "one") != nil }
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
    }

    /// The state letter of /proc/PID/stat (`Z` for a zombie).
    static func state(of pid: Int32) -> String {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let end = stat.lastIndex(of: ")") else { return "?" }
        return String(stat[stat.index(after: end)...].dropFirst().prefix(1))
    }

    static func descendants(of pid: Int32) -> [Int32] {
        let path = "/proc/\(pid)/task/\(pid)/children"
        let children = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: " ").compactMap {
            Int32($0)
        }
        return children + children.flatMap { descendants(of: $0) }
    }

    static func command(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }

    /// Without MONKEYCTL_SSH, `ssh` is found on the PATH (here a script
    /// that execs the real one with the test's configuration), started
    /// directly: killed mid-stream, monkeyctl says so itself.
    @Test func sshFromThePath() throws {
        let fleet = try Fleet()
        let directory = TemporaryDirectory()
        let script = directory.path + "/ssh"
        try "#!/bin/sh\nexec \(fleet.ssh) \"$@\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let environment = ["PATH": directory.path + ":/usr/bin:/bin"]
        let ping = try MonkeyctlProcess.run(["-H", "alpha", "ping"], environment: environment)
        #expect(ping.status == 0 && ping.lines == ["pong"], "\(ping)")
        _ = try fleet.alpha.request("START f interval=5ms")
        let follower = try MonkeyctlProcess(["-H", "alpha", "tail", "-f", "-n", "0", "f"], environment: environment)
        #expect(follower.readLine() != nil, "an entry")
        let ssh = Self.descendants(of: follower.pid)
        #expect(ssh.map(Self.command) == ["ssh"], "ssh is monkeyctl's own child")
        for pid in ssh { kill(pid, SIGKILL) }
        let result = try follower.finish()
        #expect(result.status == 4, "\(result)")
        #expect(
            result.errorLines.last == "monkeyctl: lost the connection to monkeyd on alpha: ssh was killed by signal 9",
            "\(result)")
    }

    /// -H is checked before anything is started.
    @Test(arguments: [
        ["-H", "a", "-H", "b", "ping"], ["-H", "-oProxyCommand=x", "ping"], ["-H", "", "ping"],
        ["-H", "a b", "ping"], ["-H", "a", "odds", "--target", "ab"], ["-H", "a", "bridge"],
    ])
    func usageErrors(_ arguments: [String]) throws {
        let result = try MonkeyctlProcess.run(arguments, environment: ["MONKEYCTL_SSH": "/bin/false"])
        #expect(result.status == 2 && result.output == "", "\(arguments): \(result)")
    }

    /// `top` through ssh, in a terminal: the view of alpha's sessions, a
    /// key moves the selection, `q` quits, and the terminal is as it was.
    @Test(.enabled(if: TmuxSession.isAvailable))
    func topThroughSSH() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START one interval=1h")
        _ = try fleet.alpha.request("START two interval=1h")
        let pane = try TmuxSession(
            columns: 100, rows: 20,
            script:
                "stty -a > before; MONKEYCTL_SSH=\(SSHServer.quoted(fleet.ssh)) '\(Binaries.monkeyctl)' -H alpha top;"
                + " echo $? > status; stty -a > after")
        try pane.waitFor("top's header") { $0.first?.hasPrefix("monkeyd 0.1.0 |") == true }
        try pane.waitFor("both rows") { TopTests.row($0, "one") != nil && TopTests.row($0, "two") != nil }
        let first = try pane.screen().first { $0.hasPrefix(">") }
        try pane.press("Down")
        try pane.waitFor("the selection moved") { screen in screen.first { $0.hasPrefix(">") } != first }
        try pane.press("q")
        #expect(try pane.waitForFile("status") == "0\n")
        #expect(try pane.waitForFile("after") == (try pane.waitForFile("before")))
    }
}
