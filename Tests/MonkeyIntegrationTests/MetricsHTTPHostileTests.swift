import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// Hostile HTTP clients of the metrics listener: whatever they do, they
/// get a clear status, the daemon's memory stays bounded, and the control
/// socket goes on answering.
@Suite("Metrics over HTTP, hostile clients")
struct MetricsHTTPHostileTests {
    @Test func sixtyFourKilobytesOfHeadersAre431() throws {
        let daemon = try DaemonProcess(configuration: "metrics_listen = 127.0.0.1:0\n")
        let port = try daemon.metricsPort()
        let before = daemon.residentKilobytes()
        for _ in 0..<20 {
            let client = try HTTPClient(port: port)
            let filler = (0..<2048).map { "X-Filler-\($0): \(String(repeating: "y", count: 16))\r\n" }.joined()
            try client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n" + filler + "\r\n")
            let answer = try HTTPAnswer(client.readToEnd())
            #expect(answer.status == 431, "the answer is read, not lost to a reset")
            #expect(try daemon.request("PING") == ["OK pong"])
        }
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 4 * 1024, "the headers were not kept (grew \(growth) KiB)")
        #expect(try MetricsScrape(daemon)["monkeyd_http_responses_total{code=\"431\"}"] == 20)
    }

    /// A slowloris sends a byte now and then and never ends its request: it
    /// is answered 408 and cut `metrics_timeout` after it connected, however
    /// often it sends.
    @Test func aSlowlorisIsCutAfterTheTimeout() throws {
        let daemon = try DaemonProcess(configuration: "metrics_listen = 127.0.0.1:0\nmetrics_timeout = 600ms\n")
        let port = try daemon.metricsPort()
        let slow = try HTTPClient(port: port)
        let connected = Date()
        let request = Array("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + [UInt8](repeating: 0x61, count: 200)
        var sent = 0
        var cut = false
        while Date().timeIntervalSince(connected) < 10 {
            // One byte every 50 ms: the pace of the attack, not a synchronisation.
            if sent < request.count { _ = try? slow.send([request[sent]]) }
            sent += 1
            #expect(try daemon.request("PING") == ["OK pong"], "the control socket answers throughout")
            if slow.waitReadable(timeout: 0.05) {
                cut = true
                break
            }
        }
        let elapsed = Date().timeIntervalSince(connected)
        #expect(cut)
        #expect(elapsed >= 0.55 && elapsed < 5, "cut after \(elapsed) s")
        // A slowloris does not stop at the answer: what it sends after it
        // must not reset the connection before the 408 is read.
        for byte in request.suffix(3) { _ = try? slow.send([byte]) }
        let answer = try HTTPAnswer(slow.readToEnd())
        #expect(answer.status == 408)
        #expect(try eventually { try MetricsScrape(daemon)["monkeyd_http_clients"] == 0 })
    }

    @Test func aReaderThatStopsReadingIsCutAtTheTimeout() throws {
        let daemon = try DaemonProcess(
            configuration: "metrics_listen = 127.0.0.1:0\nmetrics_timeout = 500ms\nmax_pending_output = 64K\n")
        let connection = try daemon.connect()
        let lines = (0..<2000).map { "START s\($0) interval=1h" }
        try connection.send(Array((lines.joined(separator: "\n") + "\n").utf8))
        for _ in lines { _ = try connection.readResponse() }
        let client = try HTTPClient(port: daemon.metricsPort(), receiveBuffer: 4096)
        try client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        // It does not read: the daemon holds at most max_pending_output
        // beyond what the sockets take, and closes the connection at the timeout.
        #expect(try eventually { try MetricsScrape(daemon)["monkeyd_http_clients"] == 0 })
        #expect(try daemon.request("PING") == ["OK pong"])
        let answer = try HTTPAnswer(client.readToEnd())
        #expect(answer.status == 200)
    }

    @Test func binaryGarbageIs400() throws {
        let daemon = try DaemonProcess(configuration: "metrics_listen = 127.0.0.1:0\n")
        let port = try daemon.metricsPort()
        for seed in 1...8 {
            var random = SeededBytes(seed: UInt64(seed))
            let client = try HTTPClient(port: port)
            try? client.send(random.bytes(300) + [0x0D, 0x0A, 0x0D, 0x0A] + random.bytes(65536))
            let answer = try HTTPAnswer(client.readToEnd())
            #expect([400, 431].contains(answer.status), "seed \(seed): \(answer.status)")
        }
        #expect(try daemon.request("PING") == ["OK pong"])
    }

    @Test func aThousandConnectionsAreRefusedCleanlyPastTheLimit() throws {
        raiseOpenFileLimit(to: 4096)
        let daemon = try DaemonProcess(configuration: "metrics_listen = 127.0.0.1:0\nmax_metrics_clients = 16\n")
        let port = try daemon.metricsPort()
        let before = daemon.residentKilobytes()
        var clients = try (0..<1000).map { _ in try HTTPClient(port: port) }
        #expect(try daemon.request("PING") == ["OK pong"])
        // Accepted in the order they connected: the first 16 are served, the rest told why.
        for client in clients[16...] {
            let answer = try HTTPAnswer(client.readToEnd())
            #expect(answer.status == 503 && answer.field("Retry-After") == "1")
        }
        #expect(try daemon.request("PING") == ["OK pong"])
        for client in clients[..<16] { try client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") }
        for client in clients[..<16] { #expect(try HTTPAnswer(client.readToEnd()).status == 200) }
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 8 * 1024, "grew \(growth) KiB")
        let scrape = try MetricsScrape(daemon)
        #expect(scrape["monkeyd_clients_refused_total{listener=\"metrics\"}"] == 984)
        #expect(scrape["monkeyd_http_responses_total{code=\"503\"}"] == 984)
        #expect(scrape["monkeyd_clients_refused_total{listener=\"control\"}"] == 0)
        // The slots come back once the clients hang up: a new client is served.
        clients.removeAll()
        #expect(eventually { (try? HTTPClient.get(port: port).status) == 200 })
    }
}
