import Foundation
import Glibc
import Testing

/// `monkeyctl bridge`: standard input and output joined to a real daemon's
/// socket, byte for byte, piped here and through a real sshd.
@Suite("monkeyctl bridge")
struct BridgeTests {
    /// A bridge to `daemon`, found through `MONKEYD_SOCKET` as the usual
    /// rules find it, with a pipe on its standard input.
    final class Bridge {
        let input = Pipe()
        let process: MonkeyctlProcess

        init(_ daemon: DaemonProcess, arguments: [String] = ["bridge"]) throws {
            process = try MonkeyctlProcess(arguments, environment: ["MONKEYD_SOCKET": daemon.socketPath], input: input)
        }

        /// Over ssh: `ssh ... monkeyctl bridge` with `MONKEYD_SOCKET` sent to the far side.
        init(_ daemon: DaemonProcess, through server: SSHServer) throws {
            process = try server.launch(
                "monkeyctl bridge", environment: ["MONKEYD_SOCKET": daemon.socketPath], input: input)
        }

        func send(_ text: String) {
            input.fileHandleForWriting.write(Data(text.utf8))
        }

        func endInput() throws {
            try input.fileHandleForWriting.close()
        }

        /// The lines up to and including the next status line.
        func response() throws -> [String] {
            var lines: [String] = []
            while let line = process.readLine() {
                lines.append(line)
                if line == "OK" || line.hasPrefix("OK ") || line.hasPrefix("ERR ") { return lines }
            }
            throw TestFailure("the bridge's output ended after \(lines): \(try process.finish())")
        }
    }

    /// Requests of every kind at once; a session typing every hour stays
    /// as it is while they are answered, so the answers can be compared
    /// (START puts back the monkeys the SET changed).
    static let batch: [String] =
        ["START b interval=1h monkeys=1", "HELLO"] + Array(repeating: ["PING", "STATUS b"], count: 100).joined()
        + ["SET b monkeys=3", "STATUS", "LOG b", "frobnicate", "HELP"]

    /// What the daemon answers `batch` one request at a time on its own socket.
    static func directAnswers(_ daemon: DaemonProcess) throws -> [String] {
        let connection = try daemon.connect()
        return try batch.flatMap { try connection.request($0) }
    }

    @Test func aPingThroughTheBridge() throws {
        let daemon = try DaemonProcess()
        let bridge = try Bridge(daemon)
        bridge.send("PING\n")
        #expect(try bridge.response() == ["OK pong"])
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0 && result.error == "", "\(result)")
    }

    /// `--socket` names the socket, as for every subcommand.
    @Test func socketOption() throws {
        let daemon = try DaemonProcess()
        let input = Pipe()
        let process = try MonkeyctlProcess(["--socket", daemon.socketPath, "bridge"], input: input)
        input.fileHandleForWriting.write(Data("HELLO\n".utf8))
        try input.fileHandleForWriting.close()
        let result = try process.finish()
        #expect(result.status == 0 && result.lines == ["OK monkeyd version=0.1.0 protocol=1"], "\(result)")
    }

    /// A pipelined batch written at once: every answer, in order, as the
    /// daemon gives them on its own socket; the end of the input lets the
    /// daemon finish and close, which ends the bridge.
    @Test func aPipelinedBatchIsAnsweredInOrder() throws {
        let daemon = try DaemonProcess()
        let bridge = try Bridge(daemon)
        bridge.send(Self.batch.map { $0 + "\n" }.joined())
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0 && result.error == "", "\(result.status) \(result.error)")
        #expect(result.lines == (try Self.directAnswers(daemon)))
    }

    /// A response much larger than the bridge's buffers comes through whole.
    @Test func aLargeResponseComesThroughWhole() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START big monkeys=40 interval=1ms")
        #expect(try eventually { try Int(fields(daemon.request("STATUS big")[0])["entries"] ?? "0") ?? 0 >= 3000 })
        _ = try daemon.request("STOP big")
        let direct = try daemon.request("LOG big")
        #expect(direct.joined(separator: "\n").utf8.count > 3 * 65536, "larger than three buffers of the bridge")
        let bridge = try Bridge(daemon)
        bridge.send("LOG big\n")
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0 && result.lines == direct, "\(result.lines.count) lines, \(direct.count) direct")
    }

    /// A follower's TAIL ends with a line, and the connection is a request
    /// connection again, through the bridge as on the socket.
    @Test func aTailFollowedThenEndedByALine() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START f interval=5ms")
        let bridge = try Bridge(daemon)
        try Self.followAndEnd(bridge)
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0, "\(result)")
    }

    /// TAIL, three entries, the empty line that ends it, then a PING.
    static func followAndEnd(_ bridge: Bridge) throws {
        bridge.send("TAIL f last=0\n")
        for _ in 0..<3 {
            let line = try #require(bridge.process.readLine())
            #expect(line.hasPrefix("entry session=f "), "\(line)")
        }
        bridge.send("\nPING\n")
        let rest = try bridge.response()
        #expect(rest.last == "OK" && rest.dropLast().allSatisfy { $0.hasPrefix("entry session=f ") }, "\(rest)")
        #expect(try bridge.response() == ["OK pong"])
    }

    /// The end of the input half-closes the socket: the daemon ends the
    /// follower's TAIL, says OK and closes, and the bridge exits.
    @Test func theEndOfTheInputEndsAFollower() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START f interval=5ms")
        let bridge = try Bridge(daemon)
        bridge.send("TAIL f last=1\n")
        #expect(bridge.process.readLine()?.hasPrefix("entry session=f ") == true)
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0 && result.lines.last == "OK", "\(result)")
    }

    /// The daemon closing (after QUIT) ends the bridge, though its input stays open.
    @Test func theDaemonClosingEndsTheBridge() throws {
        let daemon = try DaemonProcess()
        let bridge = try Bridge(daemon)
        bridge.send("PING\nQUIT\n")
        let result = try bridge.process.finish()
        #expect(result.status == 0 && result.lines == ["OK pong", "OK bye"], "\(result)")
    }

    /// Whoever reads the bridge's output going away ends it, though its
    /// input stays open and its daemon has more to say.
    @Test func theReaderGoingAwayEndsTheBridge() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START f interval=1ms")
        let input = Pipe()
        let shell = try MonkeyctlProcess(
            ["-c", "\"$0\" bridge | head -n 2; echo \"bridge ${PIPESTATUS[0]}\"", Binaries.monkeyctl],
            environment: ["MONKEYD_SOCKET": daemon.socketPath], input: input, executable: "/bin/bash")
        input.fileHandleForWriting.write(Data("TAIL f last=0\n".utf8))
        let result = try shell.finish()
        #expect(result.lines.count == 3 && result.lines.last == "bridge 0", "\(result)")
        try input.fileHandleForWriting.close()
    }

    @Test func noDaemonCannotConnect() throws {
        let directory = TemporaryDirectory()
        let socket = directory.path + "/none.sock"
        let result = try MonkeyctlProcess(["bridge"], environment: ["MONKEYD_SOCKET": socket], input: Pipe()).finish()
        #expect(result.status == 3 && result.output == "", "\(result)")
        #expect(
            result.errorLines == [
                "monkeyctl: cannot connect to monkeyd at \(socket): No such file or directory "
                    + "(is monkeyd running? For a daemon on another socket: --socket PATH or MONKEYD_SOCKET=PATH)"
            ])
    }

    /// Hidden from the global help, which lists what people type; its own
    /// help and monkeyctl(1) document it.
    @Test func helpOnlyWhenAsked() throws {
        let global = try MonkeyctlProcess.run(["--help"])
        #expect(global.status == 0 && !global.output.contains("bridge"), "\(global)")
        let own = try MonkeyctlProcess.run(["bridge", "--help"])
        #expect(own.status == 0 && own.output.hasPrefix("Usage: monkeyctl bridge\n"), "\(own)")
        let page = try PackagingTests.text("man/monkeyctl.1")
        #expect(page.contains(".It Cm bridge\n"))
        let extra = try MonkeyctlProcess.run(["bridge", "now"])
        #expect(extra.status == 2, "\(extra)")
    }

    // Through a real sshd, as `monkeyctl -H` will run it.

    @Test(.enabled(if: SSHServer.isAvailable))
    func overSSH() throws {
        let server = try SSHServer()
        let daemon = try DaemonProcess()
        _ = try daemon.request("START f interval=5ms")
        let bridge = try Bridge(daemon, through: server)
        bridge.send("PING\n")
        #expect(try bridge.response() == ["OK pong"], "\(server.output)")
        try Self.followAndEnd(bridge)
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0, "\(result)")
    }

    @Test(.enabled(if: SSHServer.isAvailable))
    func aPipelinedBatchOverSSH() throws {
        let server = try SSHServer()
        let daemon = try DaemonProcess()
        let bridge = try Bridge(daemon, through: server)
        bridge.send(Self.batch.map { $0 + "\n" }.joined())
        try bridge.endInput()
        let result = try bridge.process.finish()
        #expect(result.status == 0, "\(result.status) \(result.error)")
        #expect(result.lines == (try Self.directAnswers(daemon)))
    }

    /// ssh passes the far side's exit status and message on.
    @Test(.enabled(if: SSHServer.isAvailable))
    func noDaemonOnTheFarSide() throws {
        let server = try SSHServer()
        let socket = server.directory.path + "/none.sock"
        let result = try server.run("monkeyctl bridge", environment: ["MONKEYD_SOCKET": socket])
        #expect(result.status == 3 && result.output == "", "\(result)")
        #expect(result.error.contains("monkeyctl: cannot connect to monkeyd at \(socket)"), "\(result)")
    }
}
