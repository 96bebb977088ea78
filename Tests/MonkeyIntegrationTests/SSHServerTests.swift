import Foundation
import Testing

/// The test fixture `SSHServer`: a real sshd on the loopback address runs
/// remote commands for the key it knows, with the environment the tests
/// give them, and refuses other keys as ssh reports it (exit status 255).
@Suite("A real sshd", .enabled(if: SSHServer.isAvailable))
struct SSHServerTests {
    @Test func aRemoteCommandRunsAndItsOutputComesBack() throws {
        let server = try SSHServer()
        let result = try server.run("echo hello from the far side")
        #expect(result.status == 0 && result.output == "hello from the far side\n", "\(result); \(server.output)")
    }

    /// The remote shell starts a level up, so that bash reads no
    /// ~/.bashrc of the tester's (it does for a command sshd runs at level
    /// 1): what runs there could print to the commands' stderr.
    @Test func theRemoteShellReadsNoBashrc() throws {
        let server = try SSHServer()
        let result = try server.run("echo \"$SHLVL\"")
        #expect(result.status == 0 && result.output == "2\n", "\(result); \(server.output)")
    }

    @Test func aKeyItDoesNotKnowIsRefused() throws {
        let server = try SSHServer()
        let result = try server.run("echo hello", key: server.strangerKey)
        #expect(result.status == 255 && result.output == "", "\(result)")
        #expect(result.error.contains("Permission denied"), "\(result)")
    }

    /// monkeyctl is found on the far side's PATH, and the client's
    /// MONKEYD_SOCKET reaches the remote command, as in MONKEYCTL_SSH.
    @Test func theRemoteCommandFindsMonkeyctlAndTheSocket() throws {
        let server = try SSHServer()
        let socket = server.directory.path + "/monkeyd.sock"
        let result = try server.run(
            "command -v monkeyctl; echo \"$MONKEYD_SOCKET\"", environment: ["MONKEYD_SOCKET": socket])
        #expect(result.status == 0 && result.lines == [Binaries.monkeyctl, socket], "\(result)")
        let line = server.commandLine(environment: ["MONKEYD_SOCKET": socket])
        #expect(line.hasPrefix(SSHServer.client + " -F /dev/null "), "\(line)")
        #expect(line.contains("SetEnv=") && line.contains("MONKEYD_SOCKET=\(socket)"), "\(line)")
    }

    /// The command line, read back by a shell as MONKEYCTL_SSH will be, reaches the server.
    @Test func theCommandLineWorksFromAShell() throws {
        let server = try SSHServer()
        let result = try runToExit(
            ["-c", server.commandLine() + " " + server.destination + " echo ok"], executable: "/bin/sh")
        #expect(result.status == 0 && result.error == "ok\n", "\(result)")
    }
}
