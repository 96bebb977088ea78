import Foundation
import Glibc
import Testing

/// The metrics proven against a real Prometheus server (monkeyd(8), METRICS): a
/// prometheus (Debian's) scrapes the daemon's metrics_listen every second,
/// and its query API agrees with STATUS.
@Suite("A real Prometheus server")
struct PrometheusTests {
    static let binary = "/usr/bin/prometheus"

    /// A Prometheus server in a temporary directory, scraping `target`.
    final class Server {
        let directory = TemporaryDirectory()
        let process = Process()
        let port: UInt16
        private let log = ErrorLog()

        init(scraping target: String) throws {
            port = try freeTCPPort()
            let configuration = """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: monkeyd
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    static_configs:
                      - targets: ['\(target)']
                """
            try configuration.write(toFile: directory.path + "/prometheus.yml", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: PrometheusTests.binary)
            process.arguments = [
                "--config.file=\(directory.path)/prometheus.yml", "--storage.tsdb.path=\(directory.path)/data",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            let log = self.log
            output.fileHandleForReading.readabilityHandler = { log.append($0.availableData) }
            try process.run()
        }

        deinit {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }

        var output: String { log.text }

        /// The samples of an instant query: labels and value of each.
        func query(_ expression: String) throws -> [(labels: [String: String], value: Double)] {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let encoded = expression.addingPercentEncoding(withAllowedCharacters: allowed) ?? expression
            let client = try HTTPClient(port: port)
            try client.send(
                "GET /api/v1/query?query=\(encoded) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let answer = try HTTPAnswer(client.readToEnd())
            guard answer.status == 200,
                let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
                let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
            else { throw TestFailure("query \(expression): \(answer.status) \(answer.body)") }
            return result.compactMap { sample in
                guard let labels = sample["metric"] as? [String: String], let pair = sample["value"] as? [Any],
                    pair.count == 2, let text = pair[1] as? String, let value = Double(text)
                else { return nil }
                return (labels, value)
            }
        }

        /// The single value of a query, once it has one (polling up to `timeout`).
        func value(_ expression: String, timeout: Double = 60, until condition: (Double) -> Bool = { _ in true })
            throws -> Double
        {
            var last: Double?
            let found = eventually(timeout: timeout) {
                guard let sample = (try? query(expression))?.first else { return false }
                last = sample.value
                return condition(sample.value)
            }
            guard found, let last else {
                throw TestFailure("\(expression) never met its condition (last \(String(describing: last))); \(output)")
            }
            return last
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: binary)), .timeLimit(.minutes(3)))
    func prometheusScrapesTheDaemonAndAgreesWithStatus() throws {
        let daemon = try DaemonProcess(configuration: "metrics_listen = 127.0.0.1:0\n")
        let port = try daemon.metricsPort()
        _ = try daemon.request("START p monkeys=3 interval=100ms")
        _ = try daemon.request("START idle target=monkey interval=1h")
        _ = try daemon.request("STOP idle")
        let prometheus = try Server(scraping: "127.0.0.1:\(port)")

        #expect(try prometheus.value("up{job=\"monkeyd\"}", until: { $0 == 1 }) == 1, "the target is up")
        // Scrapes over the whole of a 5 s window (rate() extrapolates less
        // than a window that its samples do not cover).
        _ = try prometheus.value(
            "count_over_time(monkeyd_session_entries_total{session=\"p\"}[10s])", until: { $0 >= 8 })
        let rate = try prometheus.value("rate(monkeyd_session_entries_total{session=\"p\"}[5s])")
        #expect(abs(rate - 10) < 1.5, "1/interval = 10 entries a second, Prometheus says \(rate)")
        let characters = try prometheus.value("rate(monkeyd_session_characters_total{session=\"p\"}[5s])")
        #expect(abs(characters - 30) < 4.5, "3 characters an entry: \(characters)")
        #expect(try prometheus.value("monkeyd_session_interval_seconds{session=\"p\"}") == 0.1)
        #expect(try prometheus.value("monkeyd_session_typing{session=\"idle\"}") == 0)
        #expect(try prometheus.value("monkeyd_session_target_length{session=\"idle\"}") == 6)

        // Stopped, the count stops: the next scrape shows exactly what STATUS says was typed.
        _ = try daemon.request("STOP p")
        let typed = try #require(Double(try fields(daemon.request("STATUS p")[0])["typed"] ?? ""))
        #expect(typed > 50)
        let scraped = try prometheus.value(
            "monkeyd_session_entries_total{session=\"p\"}", timeout: 30, until: { $0 == typed })
        #expect(scraped == typed)
        let scrapes = try prometheus.value("monkeyd_http_responses_total{code=\"200\"}")
        #expect(scrapes >= 8, "every scrape counted")
        #expect(try prometheus.value("monkeyd_build_info{version=\"0.1.0\"}") == 1)
    }
}
