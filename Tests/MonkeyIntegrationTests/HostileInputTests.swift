import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// The limits of monkeyd.conf(5) against the real binary: whatever arrives on the
/// socket, the daemon keeps serving everyone else, keeps its memory bounded
/// and changes nothing on a bad request.
@Suite("Hostile input")
struct HostileInputTests {
    @Test func threeHundredConnectionsAtOnce() throws {
        raiseOpenFileLimit(to: 1024)
        let daemon = try DaemonProcess()
        let connections = try (0..<300).map { _ in try daemon.connect() }
        // Accepted in the order they connected: the first 256 (max_clients) are served.
        for connection in connections[256...] {
            #expect(try connection.readLine()?.hasPrefix("ERR busy ") == true)
            #expect(try connection.readLine() == nil, "a refused client is closed")
        }
        for connection in connections[..<256] { try connection.send(line: "PING") }
        for connection in connections[..<256] { #expect(try connection.readResponse() == ["OK pong"]) }
        // A refused client that sent its request at once still reads why.
        let late = try daemon.connect()
        try? late.send(line: "PING")
        #expect(try late.readLine()?.hasPrefix("ERR busy ") == true)
    }

    @Test func serviceIsNormalAfterAFloodOfConnectionsLeaves() throws {
        raiseOpenFileLimit(to: 1024)
        let daemon = try DaemonProcess(configuration: "max_clients = 50\n")
        var flood = try (0..<80).map { _ in try daemon.connect() }
        flood.removeAll()
        // The slots come back as the daemon sees the hang-ups.
        #expect(
            eventually {
                guard let held = try? (0..<50).map({ _ in try daemon.connect() }) else { return false }
                return held.allSatisfy { (try? $0.request("PING")) == ["OK pong"] }
            })
        // Those 50 hang up in turn when the check returns: the next client
        // may still find every slot taken until the daemon has seen them go.
        #expect(eventually { (try? daemon.request("START s interval=1h")) == ["OK started s"] })
    }

    @Test func randomBytesFromSeveralClients() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START keep interval=1h")
        let failures = ErrorLog()
        let socketPath = daemon.socketPath
        DispatchQueue.concurrentPerform(iterations: 4) { client in
            do {
                var random = SeededBytes(seed: UInt64(client) + 1)
                let connection = try ClientConnection(path: socketPath)
                try connection.send(random.bytes(65536) + Array("\nPING\n".utf8))
                var answers = 0
                while let line = try connection.readLine() {
                    if line == "OK pong" { break }
                    guard line.hasPrefix("ERR ") else {
                        failures.append(Data("client \(client): \(line)\n".utf8))
                        break
                    }
                    answers += 1
                }
                if answers == 0 { failures.append(Data("client \(client): no answers\n".utf8)) }
            } catch {
                failures.append(Data("client \(client): \(error)\n".utf8))
            }
        }
        #expect(failures.text.isEmpty, "\(failures.text)")
        let status = try daemon.request("STATUS")
        #expect(status.count == 2 && status[0].hasPrefix("session name=keep "), "nothing changed: \(status)")
    }

    @Test func tenMegabyteLine() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        #expect(try connection.request("PING") == ["OK pong"])
        let before = daemon.residentKilobytes()
        try connection.send([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20) + Array("\nPING\n".utf8))
        #expect(try connection.readResponse().first?.hasPrefix("ERR line-too-long ") == true)
        #expect(try connection.readResponse() == ["OK pong"])
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 4 * 1024, "the line was not kept (grew \(growth) KiB)")
    }

    static let invalidText: [[UInt8]] = [
        [0xC0, 0xAF],  // overlong "/"
        [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
        [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
        [0xE2, 0x82],  // truncated
        [0xFF],
        [0x00],
        [0x22, 0x00, 0x22],  // NUL inside quotes
    ]

    @Test(arguments: invalidText)
    func invalidUTF8AndNULAnywhereInARequest(bad: [UInt8]) throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        for request in [Array("START ".utf8) + bad, Array("START s target=".utf8) + bad, bad + Array(" s".utf8)] {
            try connection.send(request + [0x0A])
            #expect(try connection.readResponse().first?.hasPrefix("ERR bad-request ") == true, "\(request)")
        }
        #expect(try connection.request("STATUS") == ["OK"], "nothing was created")
    }

    @Test func pipelinedRequestsCostOneReadNotOneFramePerLine() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 64K\n")
        let control = try daemon.connect()
        _ = try control.request("START big monkeys=400 interval=1ms")
        #expect(try eventually { try Int(fields(control.request("STATUS big")[0])["entries"] ?? "0") ?? 0 >= 200 })
        _ = try control.request("STOP big")
        let before = daemon.residentKilobytes()
        // Each greedy client asks for a LOG it never reads, then pipelines as
        // many PINGs as the socket takes; the daemon must not hold them as lines.
        let pipeline = Array("LOG big\n".utf8) + Array(String(repeating: "PING\n", count: 100_000).utf8)
        let greedy = try (0..<40).map { _ in try daemon.connect() }
        var queued = 0
        for connection in greedy { queued += sendWithoutWaiting(connection.fd, pipeline) }
        #expect(queued > 40 * 65536, "the sockets took more than one read's worth (\(queued) bytes)")
        #expect(try control.request("PING") == ["OK pong"])
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 32 * 1024, "memory stays bounded (grew \(growth) KiB)")
        // Reading, a client gets every response, in order.
        let reader = greedy[0]
        setBlocking(reader.fd)
        let log = try reader.readResponse()
        #expect(log.count > 200 && log.last == "OK")
        for _ in 0..<1000 { #expect(try reader.readResponse() == ["OK pong"]) }
    }

    static let escapingNames = [
        "../escaped", "../../escaped", "/tmp/escaped", "a/../../escaped", "..", ".", "escaped/..",
        "\"../escaped\"", "\"/tmp/escaped\"", "%2e%2e%2fescaped", "\"..\\/escaped\"", "escaped\\", "~/escaped",
    ]

    @Test func sessionNamesNeverLeaveTheStateDirectory() throws {
        let daemon = try DaemonProcess()
        let before = Set(try listTree(daemon.directory.path))
        let connection = try daemon.connect()
        for name in Self.escapingNames {
            for verb in ["START", "SET", "CLEAR", "DELETE", "LOG", "STATUS"] {
                let extra = verb == "SET" ? " monkeys=2" : ""
                let response = try connection.request("\(verb) \(name)\(extra)")
                #expect(response.first?.hasPrefix("ERR ") == true, "\(verb) \(name) → \(response)")
            }
        }
        #expect(try connection.request("STATUS") == ["OK"])
        let after = Set(try listTree(daemon.directory.path))
        let outside = after.subtracting(before).filter { !$0.hasPrefix("state/") && $0 != "state" }
        #expect(outside.isEmpty, "files outside the state directory: \(outside)")
        #expect(!after.contains { $0.contains("escaped") })
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escaped"))
    }
}

/// Raises this process's soft limit on open descriptors, for tests that
/// hold hundreds of connections.
func raiseOpenFileLimit(to wanted: rlim_t) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < wanted else { return }
    limit.rlim_cur = min(wanted, limit.rlim_max)
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// Sends what the socket takes without blocking; returns the bytes sent.
func sendWithoutWaiting(_ fd: Int32, _ bytes: [UInt8]) -> Int {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    var sent = 0
    while sent < bytes.count {
        let count = bytes.withUnsafeBytes { raw in
            (try? Syscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[sent...]))) ?? 0
        }
        guard count > 0 else { break }
        sent += count
    }
    return sent
}

func setBlocking(_ fd: Int32) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
}

/// Every path under `root`, relative to it.
func listTree(_ root: String) throws -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    return walker.compactMap { $0 as? String }
}

/// Reproducible noise.
struct SeededBytes {
    var random: WyRand

    init(seed: UInt64) { random = WyRand(seed: seed) }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
}
