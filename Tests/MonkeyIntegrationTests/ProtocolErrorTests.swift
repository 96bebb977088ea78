import Foundation
import Glibc
import Testing

/// Every error code of monkeyd(8) (Error codes), each leaving the state and the
/// connection as they were.
@Suite("Protocol errors")
struct ProtocolErrorTests {
    static let cases: [(request: String, code: String)] = [
        ("FROB s", "unknown-command"),
        (#"START "unterminated"#, "bad-request"),
        (#"START s target="x"y"#, "bad-request"),
        (#"START s target="\q""#, "bad-request"),
        ("START", "bad-request"),
        ("STOP", "bad-request"),
        ("PING extra", "bad-request"),
        ("SET s", "bad-request"),
        ("START s monkeys=abc", "bad-argument"),
        ("START s monkeys=0", "bad-argument"),
        ("START s monkeys=+5", "bad-argument"),
        ("START s monkeys=10001", "bad-argument"),
        ("START s interval=25h", "bad-argument"),
        ("START s interval=fast", "bad-argument"),
        ("START s alphabet=aa", "bad-argument"),
        (#"START s alphabet="""#, "bad-argument"),
        ("START s colour=red", "bad-argument"),
        ("START s monkeys=2 monkeys=3", "bad-argument"),
        ("START ../etc", "bad-argument"),
        ("START .hidden", "bad-argument"),
        ("START -x", "bad-argument"),
        ("START \(String(repeating: "n", count: 65))", "bad-argument"),
        ("START s target=\(String(repeating: "t", count: 1025))", "bad-argument"),
        ("LOG s last=-1", "bad-argument"),
        ("LOG s after=x", "bad-argument"),
        ("STOP ghost", "no-such-session"),
        ("CLEAR ghost", "no-such-session"),
        ("DELETE ghost", "no-such-session"),
        ("STATUS ghost", "no-such-session"),
        ("LOG ghost", "no-such-session"),
        ("TAIL ghost", "no-such-session"),
    ]

    @Test func eachBadRequestGetsItsCodeAndChangesNothing() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        for (request, code) in Self.cases {
            let response = try connection.request(request)
            #expect(response.count == 1, "\(request)")
            #expect(response.first?.hasPrefix("ERR \(code) ") == true, "\(request) → \(response)")
            #expect((response.first?.count ?? 0) < 400, "errors are one short line")
        }
        #expect(try connection.request("STATUS") == ["OK"], "no bad request created a session")
        #expect(try connection.request("PING") == ["OK pong"], "the connection is still usable")
    }

    @Test func invalidUTF8AndNULAreBadRequests() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        try connection.send([0x50, 0x49, 0xFF, 0x47, 0x0A])
        #expect(try connection.readResponse().first?.hasPrefix("ERR bad-request") == true)
        try connection.send(Array("START s\0x\n".utf8))
        #expect(try connection.readResponse().first?.hasPrefix("ERR bad-request") == true)
        var garbage = [UInt8](repeating: 0, count: 3000)
        var random = SystemRandomNumberGenerator()
        for index in garbage.indices { garbage[index] = UInt8.random(in: 0...255, using: &random) | 0x80 }
        try connection.send(garbage + [0x0A])
        #expect(try connection.readResponse().first?.hasPrefix("ERR") == true)
        #expect(try connection.request("PING") == ["OK pong"])
        #expect(try connection.request("STATUS") == ["OK"])
    }

    @Test func overlongLineIsRefusedAndTheConnectionStaysUsable() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        let long = "START s target=" + String(repeating: "x", count: 10_000)
        try connection.send(Array((long + "\nPING\n").utf8))
        #expect(try connection.readResponse().first?.hasPrefix("ERR line-too-long") == true)
        #expect(try connection.readResponse() == ["OK pong"])
        // Exactly at the limit is fine (4096 bytes before the LF).
        let exact = "PING" + String(repeating: " ", count: 4092)
        #expect(try connection.request(exact) == ["OK pong"])
        #expect(try connection.request("STATUS") == ["OK"])
    }

    @Test func tooManySessions() throws {
        let daemon = try DaemonProcess(configuration: "max_sessions = 2\n")
        let connection = try daemon.connect()
        _ = try connection.request("START a interval=1h")
        _ = try connection.request("START b interval=1h")
        #expect(try connection.request("START c").first?.hasPrefix("ERR too-many-sessions") == true)
        #expect(try connection.request("START a monkeys=3") == ["OK started a"], "existing sessions still start")
        #expect(try connection.request("STATUS").count == 3)
    }

    @Test func busyBeyondTheClientLimit() throws {
        let daemon = try DaemonProcess(configuration: "max_clients = 3\n")
        var held = try (0..<3).map { _ in try daemon.connect() }
        for connection in held { #expect(try connection.request("PING") == ["OK pong"]) }
        let extra = try daemon.connect()
        #expect(try extra.readLine()?.hasPrefix("ERR busy") == true)
        #expect(try extra.readLine() == nil, "then the daemon closes it")
        held.removeFirst()  // closes it
        // Once a client leaves, a new one is served.
        #expect(eventually { (try? daemon.request("PING")) == ["OK pong"] })
        for connection in held { #expect(try connection.request("PING") == ["OK pong"]) }
    }

    @Test func deniedForAPeerOutsideTheGroup() throws {
        let daemon = try DaemonProcess(configuration: "socket_mode = 0666\nsocket_group = monkeyd-test-none\n")
        _ = try daemon.request("START s interval=1h")
        // A client under another uid (nobody) may read but not change.
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        client.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
            """
            import socket,sys
            s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rwb')
            for line in [b'STATUS s\\n', b'STOP s\\n', b'DELETE s\\n', b'START t\\n']:
                f.write(line); f.flush()
                while True:
                    r=f.readline().decode()
                    print(r, end='')
                    if r.startswith('OK') or r.startswith('ERR'): break
            """, daemon.socketPath,
        ]
        let output = Pipe()
        client.standardOutput = output
        try client.run()
        client.waitUntilExit()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.first?.hasPrefix("session name=s") == true)
        #expect(lines.dropFirst(2).allSatisfy { $0.hasPrefix("ERR denied ") })
        #expect(lines.last?.contains("uid 65534") == true, "the message names who was refused")
        #expect(lines.last?.contains("group monkeyd-test-none") == true, "and the rule: \(lines.last ?? "")")
        let status = try fields(try daemon.request("STATUS s")[0])
        #expect(status["state"] == "running", "the refused STOP changed nothing")
        #expect(try daemon.request("STATUS t").first?.hasPrefix("ERR no-such-session") == true)
    }

    @Test func shuttingDownEndsFollowers() throws {
        let daemon = try DaemonProcess()
        let follower = try daemon.connect()
        _ = try follower.request("START s interval=5ms")
        try follower.send(line: "TAIL s")
        #expect(try eventually { try follower.readLine()?.hasPrefix("entry ") == true })
        #expect(try daemon.stop() == 0)
        var last = ""
        while let line = try follower.readLine() { last = line }
        #expect(last.hasPrefix("ERR shutting-down"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the created socket is removed")
    }
}
