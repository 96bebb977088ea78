import Foundation
import Glibc
import MonkeyShell
import Testing

/// The exit statuses of `monkeyctl` and the one-line messages that go with them.
@Suite("monkeyctl exit status")
struct MonkeyctlExitCodeTests {
    static let missingSocket = "/nonexistent/monkeyd.sock"
    /// How a failed connect says where else a daemon may be.
    static let otherSocket = "For a daemon on another socket: --socket PATH or MONKEYD_SOCKET=PATH"

    /// Requests monkeyd refuses, and the error code it gives: what only
    /// the daemon knows (its sessions), and values beyond limits that its
    /// configuration sets (`max_monkeys`, `max_target_bytes`), which another
    /// configuration would allow.
    static let refusals: [(arguments: [String], code: String)] = [
        (["stop", "nope"], "no-such-session"),
        (["set", "nope", "--monkeys", "2"], "no-such-session"),
        (["clear", "nope"], "no-such-session"),
        (["delete", "nope"], "no-such-session"),
        (["status", "nope"], "no-such-session"),
        (["log", "nope"], "no-such-session"),
        (["tail", "nope"], "no-such-session"),
        (["tail", "nope", "-f"], "no-such-session"),
        (["wait", "nope", "--hit"], "no-such-session"),
        (["start", "--monkeys", "10001"], "bad-argument"),
        (["start", "--target", String(repeating: "x", count: 1025)], "bad-argument"),
    ]

    @Test(arguments: refusals)
    func daemonErrorIsStatusOne(_ arguments: [String], _ code: String) throws {
        let daemon = try DaemonProcess()
        let result = try MonkeyctlClient(daemon).run(arguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.output == "")
        #expect(result.errorLines.count == 1, "one line on stderr: \(result)")
        let line = result.errorLines.first ?? ""
        #expect(line.hasPrefix("monkeyctl: ") && line.hasSuffix(" (\(code))"), "\(line)")
        #expect(try daemon.request("STATUS") == ["OK"], "nothing was created")
    }

    @Test func missingSessionMessageIsTheDaemonsSentence() throws {
        let daemon = try DaemonProcess()
        let result = try MonkeyctlClient(daemon).run("stop", "nope")
        #expect(result.status == 1)
        #expect(result.error == "monkeyctl: there is no session named nope (no-such-session)\n")
    }

    /// Command lines that are wrong before anything is sent.
    static let usageErrors: [(arguments: [String], message: String)] =
        [
            (["ping", "--bogus"], "unknown option '--bogus'"),
            (["--bogus", "ping"], "unknown option '--bogus'"),
            (["-x", "ping"], "unknown option '-x'"),
            (["frobnicate"], "unknown subcommand 'frobnicate'"),
            ([], "no subcommand given"),
            (["log", "-n", "abc"], "-n needs a whole number of entries from 0 to 2147483647, not 'abc'"),
            (["tail", "-n", "abc"], "-n needs a whole number of entries from 0 to 2147483647, not 'abc'"),
            (["tail", "-n", "-1"], "-n needs a whole number of entries from 0 to 2147483647, not '-1'"),
            (
                ["tail", "--lines=2147483648"],
                "-n needs a whole number of entries from 0 to 2147483647, not '2147483648'"
            ),
            (["log", "-n"], "option '-n' needs a value"),
            (["start", "--target"], "option '--target' needs a value"),
            (["ping", "extra"], "too many arguments for 'ping': 'extra'"),
            (["stop", "a", "b"], "too many arguments for 'stop': 'b'"),
            (["stop", "--monkeys", "3"], "'stop' does not take the option '--monkeys'"),
            (["log", "-f"], "'log' does not take the option '-f'"),
            (
                ["set"],
                "'set' needs at least one of --target, --corpus, --chunk, --monkeys, --interval, --alphabet, --seed"
            ),
            (["top", "-d", "10ms"], "-d needs a duration from 100ms to 24h (like 500ms, 2s, 1min), not '10ms'"),
            (["top", "--delay=soon"], "-d needs a duration from 100ms to 24h (like 500ms, 2s, 1min), not 'soon'"),
            (["top", "--json"], "'top' is for people; 'monkeyctl status --json' gives the same figures as JSON"),
            (["top", "alpha"], "too many arguments for 'top': 'alpha'"),
            (["--socket=", "ping"], "--socket needs a path, not an empty string"),
            (["--json=yes", "ping"], "option '--json' does not take a value"),
            (["help", "frobnicate"], "no help for unknown subcommand 'frobnicate'"),
        ] + badValues

    /// Values no monkeyd accepts, whatever its configuration: refused by the
    /// daemon's own parser before anything is sent, in the daemon's words.
    static let badValues: [(arguments: [String], message: String)] = [
        (["start", "bad", "--interval", "5parsecs"], "interval must be \(interval), not '5parsecs'"),
        (["start", "--interval", "25h"], "interval must be \(interval), not '25h'"),
        (["start", "--interval", "2m"], "interval must be \(interval), not '2m'"),
        (
            ["set", "--interval", "1.5"],
            "interval must be \(interval), not '1.5': a number without a unit is whole milliseconds; "
                + "write 1.5s or 1.5ms"
        ),
        (["start", "--monkeys", "0"], "monkeys must be a whole number from 1 to 10000, not '0'"),
        (["start", "--monkeys", "abc"], "monkeys must be a whole number from 1 to 10000, not 'abc'"),
        (["set", "s", "--monkeys", "2000000"], "monkeys must be a whole number from 1 to 10000, not '2000000'"),
        (["start", "--alphabet", "aa"], "alphabet repeats the character 'a'"),
        (["start", "--alphabet", ""], "alphabet may not be empty"),
        (["start", "--target", "a\u{7}b"], "target may not contain control characters"),
        (
            ["start", "--seed", "-1"],
            "seed must be a whole number from 0 to 18446744073709551615, or empty for fresh randomness, not '-1'"
        ),
        (
            ["start", "bad/name"],
            "invalid session name 'bad/name': use 1 to 64 of A-Z a-z 0-9 _ . - , not starting with . or -"
        ),
        (
            ["stop", ".hidden"],
            "invalid session name '.hidden': use 1 to 64 of A-Z a-z 0-9 _ . - , not starting with . or -"
        ),
        (
            ["tail", "ok", "a[b"],
            "invalid session name or glob 'a[b': use 1 to 64 of A-Z a-z 0-9 _ . - , or a glob of them with * ? [...]"
        ),
        (
            ["events", "--session", "x/*"],
            "invalid session name or glob 'x/*': use 1 to 64 of A-Z a-z 0-9 _ . - , or a glob of them with * ? [...]"
        ),
        (["wait", "cat", "--hit", "--timeout", "5parsecs"], "timeout must be \(timeout), not '5parsecs'"),
        (["wait", "--hit", "--timeout", "0"], "timeout must be \(timeout), not '0'"),
        (["wait", "hamlet", "--best", "abc"], "best must be a whole number from 1 to 1024, not 'abc'"),
        (["wait", "hamlet", "--best", "0"], "best must be a whole number from 1 to 1024, not '0'"),
    ]
    static let interval = "0 (flat out) or a duration from 1ms to 24h (like 250ms, 1.5s, 2min)"
    static let timeout = "a duration from 1ns to 24h (like 50ms, 10s)"

    @Test(arguments: usageErrors)
    func usageErrorIsStatusTwo(_ arguments: [String], _ message: String) throws {
        // A daemon that is not there: status 2, not 3, shows nothing was tried.
        let result = try MonkeyctlProcess.run(["--socket", Self.missingSocket] + arguments)
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.output == "")
        #expect(result.errorLines == ["monkeyctl: \(message)", "Try 'monkeyctl --help'."], "\(arguments)")
    }

    @Test(arguments: [["log", "-n", "abc"]] + badValues.map(\.arguments))
    func usageErrorSendsNothing(_ arguments: [String]) throws {
        let fake = try MonkeyctlFakeDaemon()
        let result = try fake.client.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(throws: TestFailure.self, "no connection was made") { try fake.accept(timeout: 0.2) }
    }

    /// A value beyond the default limits but within what monkeyd.conf may
    /// allow is the daemon's to judge: this one allows it.
    @Test func aValueOnlyTheConfigurationAllowsIsSent() throws {
        let daemon = try DaemonProcess(configuration: "max_monkeys = 20000\nmax_target_bytes = 2048\n")
        let monkeyctl = MonkeyctlClient(daemon)
        let target = String(repeating: "x", count: 1500)
        let started = try monkeyctl.run("start", "wide", "--monkeys", "15000", "--interval", "1h", "--target", target)
        #expect(started.status == 0, "\(started)")
        #expect(try fields(daemon.request("STATUS wide")[0])["monkeys"] == "15000")
        let wait = try monkeyctl.run("wait", "wide", "--best", "1500", "--timeout", "20ms")
        #expect(wait.status == 5, "best=1500 was accepted, and timed out: \(wait)")
    }

    static let daemonSubcommands: [[String]] = [
        ["start"], ["stop"], ["set", "--monkeys", "2"], ["clear"], ["delete"], ["status"], ["log"], ["tail"],
        ["tail", "-f"], ["ping"], ["hello"], ["version"],
    ]

    @Test(arguments: daemonSubcommands)
    func noDaemonIsStatusThree(_ arguments: [String]) throws {
        let result = try MonkeyctlProcess.run(["--socket", Self.missingSocket] + arguments)
        #expect(result.status == 3, "\(arguments): \(result)")
        #expect(result.output == "")
        #expect(
            result.errorLines == [
                "monkeyctl: cannot connect to monkeyd at \(Self.missingSocket): No such file or directory (is monkeyd running? \(Self.otherSocket))"
            ])
    }

    @Test func staleSocketIsStatusThree() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/stale.sock"
        // Bound but never listening: what a crashed daemon leaves behind.
        let fd = try Syscalls.unixStreamSocket(nonBlocking: false)
        defer { Syscalls.close(fd) }
        try Syscalls.bind(fd, path: path)
        let result = try MonkeyctlProcess.run(["--socket", path, "ping"])
        #expect(result.status == 3, "\(result)")
        #expect(
            result.errorLines == [
                "monkeyctl: cannot connect to monkeyd at \(path): Connection refused (is monkeyd running? \(Self.otherSocket))"
            ])
    }

    @Test func stoppedDaemonIsStatusThree() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        #expect(try monkeyctl.run("ping").status == 0)
        #expect(try daemon.stop() == 0)
        let result = try monkeyctl.run("ping")
        #expect(result.status == 3, "\(result)")
        #expect(result.error.contains("(is monkeyd running? \(Self.otherSocket))"))
    }

    @Test func connectionLostMidResponseIsStatusFour() throws {
        let fake = try MonkeyctlFakeDaemon()
        let client = try fake.client.launch("log", "s")
        let connection = try fake.accept()
        #expect(try connection.readLine() == "LOG s")
        try connection.send("entry session=s id=1 number=1 text=abc\n")
        Syscalls.shutdownWrite(connection.fd)
        let result = try client.finish()
        #expect(result.status == 4, "\(result)")
        #expect(result.lines == ["1. abc"], "what came before stays")
        #expect(
            result.errorLines == [
                "monkeyctl: lost the connection to monkeyd: monkeyd closed the connection before its answer ended"
            ])
    }

    @Test func malformedReplyIsStatusFour() throws {
        let fake = try MonkeyctlFakeDaemon()
        let client = try fake.client.launch("status")
        let connection = try fake.accept()
        #expect(try connection.readLine() == "STATUS")
        try connection.send("session name=\"unterminated\n")
        let result = try client.finish()
        #expect(result.status == 4, "\(result)")
        #expect(result.output == "")
        #expect(result.errorLines == [#"monkeyctl: malformed reply from monkeyd: session name="unterminated"#])
    }

    @Test func errorCodeFromANewerDaemonIsShownAsSent() throws {
        let fake = try MonkeyctlFakeDaemon()
        let client = try fake.client.launch("ping")
        let connection = try fake.accept()
        #expect(try connection.readLine() == "PING")
        try connection.send("ERR frobnicated the frobnicator is busy\n")
        let result = try client.finish()
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["monkeyctl: the frobnicator is busy (frobnicated)"])
    }

    /// What each command line sends: the protocol request of the subcommand (monkeyctl(1)).
    static let requests: [(arguments: [String], request: String)] = [
        (["start"], "START default"),
        (
            ["start", "s", "--target", "to be", "--monkeys", "3", "--interval", "1.5s", "--alphabet", "ab c"],
            #"START s target="to be" monkeys=3 interval=1.5s alphabet="ab c""#
        ),
        (["set", "--target", ""], #"SET default target="""#),
        (["set", "s", "--alphabet", #"a"b\c="#], #"SET s alphabet="a\"b\\c=""#),
        (["stop", "s"], "STOP s"),
        (["clear"], "CLEAR default"),
        (["delete", "x"], "DELETE x"),
        (["status"], "STATUS"),
        (["status", "s"], "STATUS s"),
        (["log"], "LOG default"),
        (["log", "s", "-n", "5"], "LOG s last=5"),
        (["tail"], "LOG default last=10"),
        (["tail", "s", "-n", "0"], "LOG s last=0"),
        (["tail", "-f"], "TAIL default last=10"),
        (["tail", "s", "-fn", "0"], "TAIL s last=0"),
        (["ping"], "PING"),
        (["hello"], "HELLO"),
        (["version"], "HELLO"),
    ]

    @Test(arguments: requests)
    func sendsTheProtocolRequest(_ arguments: [String], _ request: String) throws {
        let fake = try MonkeyctlFakeDaemon()
        let client = try fake.client.launch(arguments)
        let connection = try fake.accept()
        #expect(try connection.readLine() == request)
        try connection.send("OK\n")
        let result = try client.finish()
        #expect(result.status == 0, "\(arguments): \(result)")
    }
}
