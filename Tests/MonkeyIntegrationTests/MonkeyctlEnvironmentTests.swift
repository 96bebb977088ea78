import Foundation
import Glibc
import Testing

/// How `monkeyctl` finds the daemon, and when it colours its output.
@Suite("monkeyctl environment")
struct MonkeyctlEnvironmentTests {
    @Test func monkeydSocketIsUsedWithoutSocketOption() throws {
        let daemon = try DaemonProcess()
        defer { withExtendedLifetime(daemon) {} }
        let result = try MonkeyctlProcess.run(["ping"], environment: ["MONKEYD_SOCKET": daemon.socketPath])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines == ["pong"])
    }

    @Test func socketOptionWinsOverMonkeydSocket() throws {
        let daemon = try DaemonProcess()
        defer { withExtendedLifetime(daemon) {} }
        let missing = "/nonexistent/monkeyd.sock"
        let option = try MonkeyctlProcess.run(
            ["--socket", daemon.socketPath, "ping"], environment: ["MONKEYD_SOCKET": missing])
        #expect(option.status == 0 && option.lines == ["pong"], "\(option)")
        let reversed = try MonkeyctlProcess.run(
            ["ping", "--socket", missing], environment: ["MONKEYD_SOCKET": daemon.socketPath])
        #expect(reversed.status == 3, "\(reversed)")
        #expect(reversed.error.hasPrefix("monkeyctl: cannot connect to monkeyd at \(missing): "))
    }

    @Test func withoutEitherTheDefaultPathIsUsed() throws {
        let directory = TemporaryDirectory()
        let expected =
            geteuid() == 0 ? "/run/monkeyd/monkeyd.sock" : directory.path + "/monkeyd/monkeyd.sock"
        // A daemon really running there would answer; nothing to learn then.
        guard !FileManager.default.fileExists(atPath: expected) else { return }
        // An empty MONKEYD_SOCKET counts as unset.
        let result = try MonkeyctlProcess.run(
            ["ping"], environment: ["MONKEYD_SOCKET": "", "XDG_RUNTIME_DIR": directory.path])
        #expect(result.status == 3, "\(result)")
        #expect(result.error.hasPrefix("monkeyctl: cannot connect to monkeyd at \(expected): "), "\(result)")
    }

    @Test(.enabled(if: geteuid() != 0, "root ignores XDG_RUNTIME_DIR"))
    func xdgRuntimeDirectoryHoldsTheUsersSocket() throws {
        let daemon = try DaemonProcess()
        defer { withExtendedLifetime(daemon) {} }
        let runtime = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: runtime.path + "/monkeyd", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: runtime.path + "/monkeyd/monkeyd.sock", withDestinationPath: daemon.socketPath)
        let result = try MonkeyctlProcess.run(["ping"], environment: ["XDG_RUNTIME_DIR": runtime.path])
        #expect(result.status == 0 && result.lines == ["pong"], "\(result)")
    }

    /// A session whose log has hits and whose state is `running`: both coloured on a terminal.
    private func colourfulDaemon() throws -> MonkeyctlClient {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        _ = try monkeyctl.typedEntries(daemon, "--alphabet", "a", "--target", "aa", "--monkeys", "2", count: 3)
        #expect(try monkeyctl.run("start", "s", "--interval", "1h").status == 0)
        return monkeyctl
    }

    @Test func noColourIntoAPipe() throws {
        let monkeyctl = try colourfulDaemon()
        let terminalLike = ["TERM": "xterm-256color"]
        for arguments in [["log", "s"], ["tail", "s"], ["status"]] {
            let result = try monkeyctl.run(arguments, environment: terminalLike)
            #expect(result.status == 0 && !result.output.isEmpty, "\(result)")
            #expect(!result.output.contains("\u{1B}"), "\(arguments): \(result)")
        }
        #expect(try monkeyctl.run(["log", "s"], environment: terminalLike).lines.first == "1. aa  *hit*")
    }

    @Test func colourOnATerminal() throws {
        let monkeyctl = try colourfulDaemon()
        let log = try monkeyctl.launch(
            "log", "s", environment: ["TERM": "xterm-256color"], terminal: MonkeyctlTerminal()
        )
        .finish()
        #expect(log.status == 0, "\(log)")
        #expect(log.lines.first == "\u{1B}[1;32m1. aa  *hit*\u{1B}[0m", "\(log)")
        let status = try monkeyctl.launch("status", environment: ["TERM": "xterm"], terminal: MonkeyctlTerminal())
            .finish()
        #expect(status.output.hasPrefix("s  \u{1B}[32mrunning\u{1B}[0m  2 monkeys"), "\(status)")
        // NO_COLOR counts only when it is not empty.
        let empty = try monkeyctl.launch(
            "log", "s", environment: ["TERM": "xterm", "NO_COLOR": ""], terminal: MonkeyctlTerminal()
        )
        .finish()
        #expect(empty.output.contains("\u{1B}["), "\(empty)")
    }

    @Test(arguments: [["TERM": "xterm-256color", "NO_COLOR": "1"], ["TERM": "dumb"]])
    func noColourOnATerminalWhenAskedNotTo(_ environment: [String: String]) throws {
        let monkeyctl = try colourfulDaemon()
        for arguments in [["log", "s"], ["status"]] {
            let result = try monkeyctl.launch(arguments, environment: environment, terminal: MonkeyctlTerminal())
                .finish()
            #expect(result.status == 0 && !result.output.isEmpty, "\(result)")
            #expect(!result.output.contains("\u{1B}"), "\(arguments) with \(environment): \(result)")
        }
    }
}
