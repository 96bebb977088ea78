import Foundation
import Glibc
import MonkeyShell
import Testing

/// Start-up and shutdown of the real daemon: sockets, signals, arguments.
@Suite("Daemon lifecycle")
struct DaemonLifecycleTests {
    @Test func refusesToStartWhenALiveDaemonAnswers() throws {
        let daemon = try DaemonProcess()
        let stateDirectory = daemon.stateDirectory + "2"
        let second = try runToExit(["--socket", daemon.socketPath, "--state-dir", stateDirectory])
        #expect(second.status == 1)
        #expect(second.error.contains("another monkeyd is already listening"))
        #expect(try daemon.request("PING") == ["OK pong"], "the first daemon and its socket are untouched")
        // The socket is checked before anything is created: a refused start leaves no debris.
        #expect(
            !FileManager.default.fileExists(atPath: stateDirectory),
            "the refused daemon created its state directory \(stateDirectory)")
    }

    @Test func replacesAStaleSocket() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/stale.sock"
        // A socket file nobody listens on, as a crashed daemon leaves it.
        let fd = try Syscalls.unixStreamSocket(nonBlocking: false)
        try Syscalls.bind(fd, path: path)
        Syscalls.close(fd)
        #expect(Syscalls.isSocket(path))
        let daemon = try DaemonProcess(arguments: ["--socket", path])
        let connection = try ClientConnection(path: path)
        #expect(try connection.request("PING") == ["OK pong"])
        _ = daemon
    }

    @Test func refusesAPathThatIsNotASocket() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/file"
        try "precious".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try runToExit(["--socket", path, "--state-dir", directory.path + "/state"])
        #expect(result.status == 1)
        #expect(result.error.contains("is not a socket"))
        #expect((try? String(contentsOfFile: path, encoding: .utf8)) == "precious")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func exitsCleanlyOnSignalAndRemovesItsSocket(signal: Int32) throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s interval=1ms")
        #expect(try daemon.stop(signal: signal) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(daemon.notify.waitFor("STOPPING=1") != nil)
    }

    @Test func createdSocketHasTheConfiguredMode() throws {
        let daemon = try DaemonProcess(configuration: "socket_mode = 0600\n")
        var info = stat()
        #expect(lstat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let standard = try DaemonProcess()
        #expect(lstat(standard.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
    }

    @Test func badConfigurationRefusesToStart() throws {
        let directory = TemporaryDirectory()
        let config = directory.path + "/bad.conf"
        try "# comment\nmax_monkeys = 10\nmax_sessions = lots\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let result = try runToExit([
            "--socket", directory.path + "/s.sock", "--state-dir", directory.path + "/state", "--config", config,
        ])
        #expect(result.status == 1)
        #expect(result.error.contains("line 3"))
        #expect(result.error.contains("max_sessions"))
        let missing = try runToExit([
            "--socket", directory.path + "/s.sock", "--config", directory.path + "/missing.conf",
        ])
        #expect(missing.status == 1)
        #expect(missing.error.contains("does not exist"))
    }

    @Test func helpVersionAndUsageErrors() throws {
        let help = try runToExit(["--help"])
        #expect(help.status == 0 && help.error.contains("Usage: monkeyd"))
        let version = try runToExit(["--version"])
        #expect(version.status == 0 && version.error.contains("monkeyd 0.1.0"))
        let wrong = try runToExit(["--frobnicate"])
        #expect(wrong.status == 2 && wrong.error.contains("unknown argument"))
    }

    /// An idle daemon must not wake up periodically: over a quiet half
    /// second nothing but the test's own request wakes it.
    @Test func idleDaemonDoesNotWakeUp() throws {
        let daemon = try DaemonProcess(configuration: "sync_interval = 20ms\n")
        let connection = try daemon.connect()
        _ = try connection.request("START s interval=1ms")
        _ = try connection.request("STOP s")
        // An open, quiet connection costs nothing either.
        _ = try connection.request("PING")
        // The last STATUS= for systemd is sent up to a second after the change.
        #expect(daemon.notify.waitFor("STATUS=1 sessions, 0 typing") != nil)
        let before = try daemon.waitUntilIdle()
        usleep(500_000)  // an observation window, not synchronisation
        #expect(try daemon.wakeUpsBesidesRequests() == before)
    }
}
