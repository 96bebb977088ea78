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

    /// Passes sockets in the order `ACTIVATOR_SOCKETS` names them
    /// (`control`: the Unix socket at `--socket`, named `monkeyd.socket`;
    /// `metrics`: a TCP socket on 127.0.0.1 and a free port, named
    /// `metrics`), with `LISTEN_FDNAMES`, and writes the metrics port to
    /// `ACTIVATOR_PORT_FILE`. With `ACTIVATOR_ONE_UNIT=yes` every socket is
    /// named `metrics`, as a drop-in for monkeyd.socket names them.
    static let namedActivator = """
        import os, socket, sys
        arguments = sys.argv[1:]
        path = arguments[arguments.index("--socket") + 1]
        sockets, names = [], []
        for kind in os.environ["ACTIVATOR_SOCKETS"].split(","):
            if kind == "control":
                listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                listener.bind(path)
                one_unit = os.environ.get("ACTIVATOR_ONE_UNIT") == "yes"
                names.append("metrics" if one_unit else "monkeyd.socket")
            else:
                listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                listener.bind(("127.0.0.1", 0))
                with open(os.environ["ACTIVATOR_PORT_FILE"], "a") as file:
                    file.write(str(listener.getsockname()[1]) + "\\n")
                names.append("metrics")
            listener.listen(16)
            # Out of the way of 3, 4, ... until every socket is made.
            sockets.append(os.dup2(listener.fileno(), 100 + len(sockets)))
        for index, fd in enumerate(sockets):
            os.dup2(fd, 3 + index)
            os.set_inheritable(3 + index, True)
        os.environ["LISTEN_FDS"] = str(len(sockets))
        os.environ["LISTEN_FDNAMES"] = ":".join(names)
        os.environ["LISTEN_PID"] = str(os.getpid())
        os.execv(arguments[0], arguments)
        """

    /// The daemon with the sockets `order` names passed; the metrics port.
    static func activated(_ order: String, configuration: String? = nil, oneUnit: Bool = false) throws -> (
        DaemonProcess, UInt16
    ) {
        let portFile = TemporaryDirectory()
        let daemon = try DaemonProcess(
            configuration: configuration,
            environment: [
                "ACTIVATOR_SOCKETS": order, "ACTIVATOR_PORT_FILE": portFile.path + "/port",
                "ACTIVATOR_ONE_UNIT": oneUnit ? "yes" : "no",
            ],
            launcher: ["/usr/bin/python3", "-c", SocketActivationTests.namedActivator])
        let text = try String(contentsOfFile: portFile.path + "/port", encoding: .utf8)
        let port = try #require(UInt16(text.split(separator: "\n").first ?? ""))
        return (daemon, port)
    }

    @Test(arguments: ["control,metrics", "metrics,control"])
    func aSocketNamedMetricsServesHTTPAndTheOtherIsTheControlSocket(order: String) throws {
        // metrics_listen is ignored when systemd passes the metrics socket.
        let (daemon, port) = try Self.activated(order, configuration: "metrics_listen = 127.0.0.1:1\n")
        #expect(try daemon.request("PING") == ["OK pong"])
        #expect(try daemon.request("START a interval=1h") == ["OK started a"])
        let answer = try HTTPClient.get(port: port)
        #expect(answer.status == 200 && answer.lines.contains("monkeyd_session_typing{session=\"a\"} 1"))
        #expect(daemon.startupLog.contains("metrics on http://127.0.0.1:\(port)/metrics passed by systemd"))
        #expect(try daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "systemd owns the socket, not monkeyd")
    }

    /// A drop-in for monkeyd.socket that adds `ListenStream=` and
    /// `FileDescriptorName=metrics` names the control socket `metrics`
    /// too: the Unix-domain one is still the control socket.
    @Test(arguments: ["control,metrics", "metrics,control"])
    func withBothSocketsNamedMetricsTheUnixOneIsTheControlSocket(order: String) throws {
        let (daemon, port) = try Self.activated(order, oneUnit: true)
        #expect(try daemon.request("START a interval=1h") == ["OK started a"])
        let answer = try HTTPClient.get(port: port)
        #expect(answer.status == 200 && answer.lines.contains("monkeyd_session_typing{session=\"a\"} 1"))
        #expect(try daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "systemd owns the socket, not monkeyd")
    }

    @Test func withOnlyAMetricsSocketPassedTheDaemonBindsItsControlSocket() throws {
        let (daemon, port) = try Self.activated("metrics")
        #expect(try daemon.request("PING") == ["OK pong"])
        #expect(try HTTPClient.get(port: port).status == 200)
        #expect(try daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "it removes the socket it created")
    }

    @Test func twoSocketsNamedMetricsAreRefused() throws {
        let directory = TemporaryDirectory()
        let (status, message) = try runToExit(
            [
                "-c", SocketActivationTests.namedActivator, Binaries.monkeyd, "--socket", directory.path + "/m.sock",
                "--state-dir", directory.path + "/state", "--config", "/dev/null",
            ], executable: "/usr/bin/python3",
            environment: ["ACTIVATOR_SOCKETS": "control,metrics,metrics", "ACTIVATOR_PORT_FILE": directory.path + "/p"])
        #expect(status == 1)
        #expect(message.contains("2 sockets named metrics besides the control socket"), "\(message)")
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
