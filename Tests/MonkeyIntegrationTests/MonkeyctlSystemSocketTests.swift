import Foundation
import Glibc
import MonkeyShell
import Testing

/// A user without a daemon of their own reaches the system daemon.
@Suite("monkeyctl finds the system daemon")
struct MonkeyctlSystemSocketTests {
    @Test(.enabled(if: getuid() == 0 && !Syscalls.exists(DefaultPaths.systemSocket)))
    func userWithoutOwnDaemonUsesTheSystemSocket() throws {
        let daemon = try DaemonProcess(
            configuration: "socket_mode = 0666\n", arguments: ["--socket", DefaultPaths.systemSocket])
        defer { _ = try? daemon.stop() }
        let runtime = TemporaryDirectory()
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        client.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.monkeyctl, "ping"]
        client.environment = ["XDG_RUNTIME_DIR": runtime.path, "HOME": runtime.path]
        let output = Pipe()
        client.standardOutput = output
        client.standardError = output
        try client.run()
        client.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(client.terminationStatus == 0, "\(text)")
        #expect(text == "pong\n")
    }

    @Test func explicitChoicesAndOwnDaemonsWin() {
        let system = DefaultPaths.systemSocket
        let environment: [String: String] = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        let own = "/run/user/1000/monkeyd/monkeyd.sock"
        #expect(
            DefaultPaths.clientSocket(uid: 1000, environment: { environment[$0] }, isSocket: { $0 == system }) == system
        )
        #expect(
            DefaultPaths.clientSocket(uid: 1000, environment: { environment[$0] }, isSocket: { _ in true }) == own)
        #expect(DefaultPaths.clientSocket(uid: 1000, environment: { environment[$0] }, isSocket: { _ in false }) == own)
        let explicit = ["MONKEYD_SOCKET": "/tmp/x.sock"]
        #expect(
            DefaultPaths.clientSocket(uid: 1000, environment: { explicit[$0] }, isSocket: { _ in true })
                == "/tmp/x.sock")
        #expect(DefaultPaths.clientSocket(uid: 0, environment: { _ in nil }, isSocket: { _ in false }) == system)
    }
}
