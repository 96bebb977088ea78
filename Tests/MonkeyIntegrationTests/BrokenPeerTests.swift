import Foundation
import Glibc
import MonkeyShell
import Testing

/// Clients that vanish, half-close, stall or say nothing: none of them may
/// block, crash or grow the daemon (monkeyd.conf(5), the limits).
@Suite("Broken peers")
struct BrokenPeerTests {
    @Test func halfCloseStillGetsEveryAnswerThenTheClose() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 4K\n")
        let control = try daemon.connect()
        _ = try control.request("START s monkeys=300 interval=1ms")
        #expect(try eventually { try Int(fields(control.request("STATUS s")[0])["entries"] ?? "0") ?? 0 >= 200 })
        _ = try control.request("STOP s")
        let client = try daemon.connect()
        try client.send(Array("PING\nLOG s\nSTATUS s\nPI".utf8))
        Syscalls.shutdownWrite(client.fd)
        #expect(try client.readResponse() == ["OK pong"])
        let log = try client.readResponse()
        #expect(log.count > 200 && log.last == "OK", "the whole LOG, past the output limit")
        #expect(try client.readResponse().count == 2)
        #expect(try client.readLine() == nil, "then the daemon closes; the partial line is dropped")
    }

    @Test func peerKilledInTheMiddleOfALargeLog() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 64K\nmax_clients = 2\n")
        let control = try daemon.connect()
        _ = try control.request("START big monkeys=1000 interval=1ms")
        #expect(try eventually { try Int(fields(control.request("STATUS big")[0])["entries"] ?? "0") ?? 0 >= 500 })
        _ = try control.request("STOP big")
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        reader.arguments = [
            "-c",
            """
            import socket,sys,time
            s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'LOG big\\n')
            s.recv(1000); print('reading', flush=True); time.sleep(60)
            """, daemon.socketPath,
        ]
        let output = Pipe()
        reader.standardOutput = output
        try reader.run()
        #expect(output.fileHandleForReading.availableData.starts(with: Array("reading".utf8)))
        kill(reader.processIdentifier, SIGKILL)
        reader.waitUntilExit()
        // Its slot is freed: with max_clients = 2, a second client is served again.
        #expect(eventually { (try? daemon.request("PING")) == ["OK pong"] })
        #expect(try control.request("PING") == ["OK pong"])
        #expect(daemon.process.isRunning)
    }

    @Test func halfALineThenSilenceIsDisconnectedAfterTheIdleTimeout() throws {
        let daemon = try DaemonProcess(configuration: "idle_timeout = 200ms\n")
        let silent = try daemon.connect()
        let waiting = try daemon.connect()
        #expect(try waiting.request("PING") == ["OK pong"])
        let stalled = try daemon.connect()
        try stalled.send(Array("STAT".utf8))
        #expect(stalled.waitReadable(timeout: 10), "the daemon speaks up")
        let reason = try stalled.readLine()
        #expect(reason?.hasPrefix("ERR bad-request ") == true && reason?.contains("idle_timeout") == true)
        #expect(try stalled.readLine() == nil, "and the connection is closed")
        // Connections without half a line are not idle in that sense.
        #expect(try silent.request("PING") == ["OK pong"])
        #expect(try waiting.request("PING") == ["OK pong"])
    }

    @Test func connectionsThatSayNothingCostNothingAndBlockNoOne() throws {
        let daemon = try DaemonProcess(configuration: "max_clients = 200\n")
        let before = daemon.residentKilobytes()
        let silent = try (0..<150).map { _ in try daemon.connect() }
        #expect(try daemon.request("PING") == ["OK pong"])
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 8 * 1024, "150 silent connections cost \(growth) KiB")
        for connection in silent.prefix(3) { #expect(try connection.request("PING") == ["OK pong"]) }
    }

    @Test func runningOutOfDescriptorsBacksOffInsteadOfSpinning() throws {
        raiseOpenFileLimit(to: 1024)
        let daemon = try DaemonProcess(launcher: ["/usr/bin/prlimit", "--nofile=24:24", "--"])
        var held: [ClientConnection] = []
        for _ in 0..<40 { held.append(try daemon.connect()) }
        #expect(daemon.startupLog.contains("RLIMIT_NOFILE"), "it warned at start-up")
        #expect(eventually { daemon.standardError.contains("cannot accept a connection") })
        for _ in 0..<50 { usleep(10_000) }  // half a second of EMFILE, pacing only
        let complaints = daemon.standardError.components(separatedBy: "cannot accept a connection").count - 1
        #expect(complaints < 20, "one complaint per back-off, not a busy loop (\(complaints))")
        held.removeAll()
        #expect(eventually { (try? daemon.request("PING")) == ["OK pong"] }, "service resumes")
    }

    @Test func theDaemonRaisesItsOpenFileLimitToTheHardLimit() throws {
        let daemon = try DaemonProcess(launcher: ["/usr/bin/prlimit", "--nofile=64:4096", "--"])
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers == [4096, 4096], "\(line)")
        #expect(!daemon.standardError.contains("RLIMIT_NOFILE"))
    }
}
