import MonkeyShell
import Testing

@testable import MonkeyControl

/// `-H`: the ssh command line, the destinations taken, and what ssh's end
/// says about a connection that ended early.
@Suite("Remote hosts")
struct RemoteHostTests {
    @Test func sshOnThePathByDefault() {
        let remote = RemoteHost(destination: "ops@web-1", farSocket: nil, environment: [:])
        #expect(remote.arguments == ["ssh", "ops@web-1", "monkeyctl bridge"])
    }

    /// MONKEYCTL_SSH is a command line for sh, with the host and the far
    /// command as its arguments; --socket is quoted for the far shell.
    @Test func theCommandOfTheVariable() {
        let remote = RemoteHost(
            destination: "web-1", farSocket: "/run/my monkeyd/it's.sock",
            environment: ["MONKEYCTL_SSH": "ssh -p 2222 -o BatchMode=yes"])
        #expect(
            remote.arguments == [
                "/bin/sh", "-c", "ssh -p 2222 -o BatchMode=yes \"$@\"", "monkeyctl-ssh", "web-1",
                "monkeyctl bridge --socket '/run/my monkeyd/it'\\''s.sock'",
            ])
        #expect(RemoteHost(destination: "h", farSocket: nil, environment: ["MONKEYCTL_SSH": " "]).sshCommand == nil)
    }

    @Test(
        arguments: [
            ("web-1", nil), ("ops@10.0.0.7", nil), ("", "is empty"), ("-oProxyCommand=x", "begins with '-'"),
            ("a b", "holds a blank or a control character"), ("a\nb", "holds a blank or a control character"),
        ] as [(String, String?)])
    func destinations(_ text: String, _ problem: String?) {
        #expect(RemoteHost.problem(with: text) == problem)
    }

    @Test func whatAnEndSays() {
        let refused = ["ssh: connect to host h port 22: Connection refused"]
        #expect(
            RemoteFailure.failure(host: "h", ending: .exited(255), said: refused, hadAnswered: false)
                == .hostUnreachable(host: "h", said: refused))
        // The far monkeyctl found no daemon: its status 3.
        #expect(
            RemoteFailure.failure(host: "h", ending: .exited(3), said: [], hadAnswered: false)
                == .hostUnreachable(host: "h", said: ["ssh exited with status 3"]))
        // Once the daemon has answered, the same exit is a lost connection.
        #expect(
            RemoteFailure.failure(host: "h", ending: .exited(255), said: refused, hadAnswered: true)
                == .hostLost(host: "h", said: refused))
        #expect(
            RemoteFailure.failure(host: "h", ending: .exited(4), said: [], hadAnswered: false)
                == .hostLost(host: "h", said: ["ssh exited with status 4"]))
        #expect(
            RemoteFailure.failure(host: "h", ending: .killed(signal: 9), said: [], hadAnswered: true)
                == .hostLost(host: "h", said: ["ssh was killed by signal 9"]))
        #expect(RemoteFailure.failure(host: "h", ending: .exited(0), said: [], hadAnswered: true) == nil)
    }

    /// ssh's lines before its last are passed on; the last is the reason,
    /// the far monkeyctl's own prefix taken off.
    @Test func theLinesOfAFailure() {
        let failure = ControlFailure.hostUnreachable(
            host: "h", said: ["Warning: something", "monkeyctl: cannot connect to monkeyd at /s: No such file"])
        #expect(
            failure.messageLines == [
                "Warning: something",
                "monkeyctl: cannot connect to monkeyd on h: cannot connect to monkeyd at /s: No such file",
            ])
        #expect(ExitCode.forFailure(failure) == .unreachable)
        #expect(ExitCode.forFailure(.hostLost(host: "h", said: ["x"])) == .connectionLost)
        #expect(ExitCode.forFailure(.someHostsFailed(failed: 1, of: 2, first: failure)) == .unreachable)
    }

    @Test func severalHostsOnlyForStatus() throws {
        let status = try CommandLineParser.parse(["-H", "a", "--host", "b", "status"])
        #expect(status.hosts == ["a", "b"])
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["-H", "a", "-H", "b", "tail"]) }
        #expect(try CommandLineParser.parse(["tail", "-Ha", "-f"]).hosts == ["a"])
    }
}
