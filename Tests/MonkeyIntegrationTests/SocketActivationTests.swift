import Foundation
import Glibc
import Testing

/// Socket activation as systemd does it: a listening socket as fd 3,
/// `LISTEN_FDS=1` and `LISTEN_PID` naming the daemon's own pid.
@Suite("Socket activation")
struct SocketActivationTests {
    /// Binds the path that follows `--socket`, moves the socket to fd 3,
    /// sets the variables for its own pid (which exec keeps) and execs monkeyd.
    static let activator = """
        import os, socket, sys
        arguments = sys.argv[1:]
        path = arguments[arguments.index("--socket") + 1]
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        os.chmod(path, 0o600)
        if os.environ.get("ACTIVATOR_LISTENS", "yes") == "yes":
            listener.listen(16)
        if listener.fileno() != 3:
            os.dup2(listener.fileno(), 3)
        os.set_inheritable(3, True)
        os.environ["LISTEN_FDS"] = "1"
        os.environ["LISTEN_PID"] = str(os.getpid())
        os.execv(arguments[0], arguments)
        """

    @Test func usesThePassedSocketAndNeverUnlinksIt() throws {
        let daemon = try DaemonProcess(launcher: ["/usr/bin/python3", "-c", SocketActivationTests.activator])
        #expect(try daemon.request("PING") == ["OK pong"])
        #expect(try daemon.request("START a interval=1h") == ["OK started a"])
        var status = stat()
        #expect(stat(daemon.socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600, "the daemon leaves systemd's socket as it was made")
        #expect(try daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "systemd owns the socket, not monkeyd")
        #expect(!daemon.standardError.contains("error"))
    }

    @Test func refusesAPassedSocketThatDoesNotListen() throws {
        let directory = TemporaryDirectory()
        let (status, message) = try runToExit(
            [
                "-c", SocketActivationTests.activator, Binaries.monkeyd, "--socket", directory.path + "/monkeyd.sock",
                "--state-dir", directory.path + "/state", "--config", "/dev/null",
            ], executable: "/usr/bin/python3", environment: ["ACTIVATOR_LISTENS": "no"])
        #expect(status == 1)
        #expect(message.contains("is not a listening Unix stream socket"), "\(message)")
    }
}
