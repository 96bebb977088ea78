import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// `metrics_listen` (monkeyd.conf(5)): GET /metrics over HTTP/1.1 in
/// the daemon's own event loop, and every other request answered with a
/// clear status.
@Suite("Metrics over HTTP")
struct MetricsHTTPTests {
    static let listen = "metrics_listen = 127.0.0.1:0\n"

    @Test func getServesTheTextOfMetricsChunked() throws {
        let daemon = try DaemonProcess(configuration: Self.listen)
        _ = try daemon.request("START a target=ab interval=1h")
        let port = try daemon.metricsPort()
        let answer = try HTTPClient.get(port: port)
        #expect(answer.status == 200)
        #expect(answer.field("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.field("Transfer-Encoding") == "chunked" && answer.field("Connection") == "close")
        #expect(answer.field("Date")?.hasSuffix(" GMT") == true)
        #expect(answer.isComplete, "the body ends with its last chunk")
        let verb = try daemon.request("METRICS").dropLast()
        #expect(answer.lines.filter { $0.hasPrefix("#") } == verb.filter { $0.hasPrefix("#") })
        #expect(answer.lines.contains("monkeyd_session_target_length{session=\"a\"} 2"))
        if MonkeyctlMetricsTests.hasPromtool {
            let check = try MonkeyctlMetricsTests.promtool(answer.body)
            #expect(check.status == 0, "promtool check metrics: \(check.output)")
        }
        let scrape = MetricsScrape(lines: try HTTPClient.get(port: port).lines)
        #expect(scrape["monkeyd_http_responses_total{code=\"200\"}"] == 2, "counted before it was written")
    }

    @Test func headHTTP10AndQueriesAreAnswered() throws {
        let daemon = try DaemonProcess(configuration: Self.listen)
        let port = try daemon.metricsPort()
        let head = try HTTPClient(port: port)
        try head.send("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let headAnswer = try HTTPAnswer(head.readToEnd())
        #expect(headAnswer.status == 200 && headAnswer.body.isEmpty)
        let old = try HTTPClient(port: port)
        try old.send("GET /metrics?x=1 HTTP/1.0\r\n\r\n")
        let oldAnswer = try HTTPAnswer(old.readToEnd())
        #expect(oldAnswer.status == 200 && oldAnswer.field("Transfer-Encoding") == nil)
        #expect(oldAnswer.body.hasPrefix("# HELP monkeyd_build_info ") && oldAnswer.body.hasSuffix("\n"))
    }

    static let refusals: [(String, Int)] = [
        ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        ("GET /metrics/x HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        ("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd", 405),
        ("DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("GET /metrics HTTP/1.1\r\n\r\n", 400),
        ("GET /metrics\r\n\r\n", 400),
        ("GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", 400),
        ("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    ]

    @Test func everyOtherRequestHasAClearStatus() throws {
        let daemon = try DaemonProcess(configuration: Self.listen)
        let port = try daemon.metricsPort()
        for (request, status) in Self.refusals {
            let client = try HTTPClient(port: port)
            try client.send(request)
            let answer = try HTTPAnswer(client.readToEnd())
            #expect(answer.status == status, "\(request.debugDescription)")
            #expect(answer.field("Connection") == "close")
            #expect(Int(answer.field("Content-Length") ?? "") == answer.body.utf8.count)
            if status == 405 { #expect(answer.field("Allow") == "GET, HEAD") }
        }
        let scrape = try MetricsScrape(daemon)
        #expect(scrape["monkeyd_http_responses_total{code=\"404\"}"] == 2)
        #expect(scrape["monkeyd_http_responses_total{code=\"405\"}"] == 2)
        #expect(scrape["monkeyd_http_responses_total{code=\"400\"}"] == 3)
        #expect(scrape["monkeyd_http_responses_total{code=\"505\"}"] == 2)
    }

    @Test func ipv6AndLocalhostAreServed() throws {
        let daemon = try DaemonProcess(configuration: "metrics_listen = localhost:0\n")
        #expect(try HTTPClient.get(port: daemon.metricsPort()).status == 200)
        // A machine without IPv6 on its loopback cannot bind [::1]; the rest still holds.
        let loopback6 = [UInt8](repeating: 0, count: 15) + [1]
        guard let probe = try? Syscalls.tcpListener(.ipv6, address: loopback6, port: 0, backlog: 1) else { return }
        Glibc.close(probe)
        let six = try DaemonProcess(configuration: "metrics_listen = [::1]:0\n")
        #expect(six.startupLog.contains("metrics on http://[::1]:"))
        #expect(try HTTPClient.get(port: six.metricsPort(), host: "::1").status == 200)
    }

    @Test func aPortInUseStopsTheStartAndLeavesNoControlSocket() throws {
        let holder = try Syscalls.tcpListener(.ipv4, address: [127, 0, 0, 1], port: 0, backlog: 1)
        defer { Glibc.close(holder) }
        let port = try #require(Syscalls.localTCPAddress(holder)?.port)
        let directory = TemporaryDirectory()
        let configuration = directory.path + "/monkeyd.conf"
        try "metrics_listen = 127.0.0.1:\(port)\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let socket = directory.path + "/monkeyd.sock"
        let (status, message) = try runToExit([
            "--socket", socket, "--state-dir", directory.path + "/state", "--config", configuration,
        ])
        #expect(status == 1)
        #expect(message.contains("cannot listen for metrics on 127.0.0.1:\(port)"), "\(message)")
        #expect(message.contains("Address already in use"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the control socket it bound is removed")
    }

    @Test func aBadAddressIsAConfigurationError() throws {
        let directory = TemporaryDirectory()
        let configuration = directory.path + "/monkeyd.conf"
        try "\nmetrics_listen = example.com:9464\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let (status, message) = try runToExit([
            "--socket", directory.path + "/s.sock", "--state-dir", directory.path + "/state", "--config",
            configuration,
        ])
        #expect(status == 1 && message.contains("line 2: metrics_listen:"), "\(message)")
    }

    @Test func withoutMetricsListenNothingListens() throws {
        let daemon = try DaemonProcess()
        #expect(!daemon.startupLog.contains("metrics on"))
        #expect(try MetricsScrape(daemon)["monkeyd_http_clients"] == 0)
    }
}
