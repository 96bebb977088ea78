import Foundation
import Testing

/// `monkeyctl metrics` (monkeyctl(1)): the exposition as the daemon
/// writes it, which `promtool check metrics` accepts, or JSON Lines of samples.
@Suite("monkeyctl metrics")
struct MonkeyctlMetricsTests {
    static let hasPromtool = FileManager.default.fileExists(atPath: "/usr/bin/promtool")

    /// `promtool check metrics` on `text`: its status and what it said.
    static func promtool(_ text: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: said, as: UTF8.self))
    }

    /// A daemon with a session in every state a metric can show.
    static func daemonWithEverySession() throws -> DaemonProcess {
        let daemon = try DaemonProcess()
        for line in [
            "START plain interval=20ms",
            "START target target=ab monkeys=5 alphabet=abc interval=10ms",
            "START impossible target=xyz alphabet=ab",
            "START short target=abcdef monkeys=2",
            "START seeded seed=42 target=a interval=15ms",
            "START stopped target=q",
            "STOP stopped",
            "START cleared interval=5ms",
            "START gone",
            "DELETE gone",
        ] {
            #expect(try daemon.request(line).last?.hasPrefix("OK") == true, "\(line)")
        }
        #expect(try eventually { try fields(daemon.request("STATUS target")[0])["typed"] != "0" })
        _ = try daemon.request("CLEAR cleared")
        return daemon
    }

    @Test(.enabled(if: hasPromtool))
    func promtoolAcceptsTheOutputWithSessionsInEveryState() throws {
        let daemon = try Self.daemonWithEverySession()
        let result = try MonkeyctlClient(daemon).run("metrics")
        #expect(result.status == 0 && result.error == "", "\(result)")
        let check = try Self.promtool(result.output)
        #expect(check.status == 0, "promtool check metrics: \(check.output)")
        let scrape = MetricsScrape(lines: result.lines)
        for session in ["plain", "target", "impossible", "short", "seeded", "stopped", "cleared"] {
            #expect(scrape["monkeyd_session_typing{session=\"\(session)\"}"] == (session == "stopped" ? 0 : 1))
        }
        #expect(scrape["monkeyd_session_typing{session=\"gone\"}"] == nil)
        #expect(scrape["monkeyd_session_hit_probability{session=\"impossible\"}"] == 0)
        #expect(scrape["monkeyd_session_hit_probability{session=\"short\"}"] == 0)
        #expect(
            scrape["monkeyd_session_hit_probability{session=\"seeded\"}"].map { abs($0 - 1.0 / 26) < 1e-12 } == true)
        #expect(scrape["monkeyd_session_target_length{session=\"target\"}"] == 2)
        #expect(scrape["monkeyd_sessions"] == 7)
        // The same text as the verb, but for the figures that moved meanwhile.
        let verbLines = try daemon.request("METRICS").dropLast()
        #expect(verbLines.filter { $0.hasPrefix("#") } == result.lines.filter { $0.hasPrefix("#") })
    }

    @Test(.enabled(if: hasPromtool))
    func promtoolAcceptsAnEmptyDaemon() throws {
        let daemon = try DaemonProcess()
        let result = try MonkeyctlClient(daemon).run("metrics")
        #expect(result.status == 0, "\(result)")
        let check = try Self.promtool(result.output)
        #expect(check.status == 0, "promtool check metrics: \(check.output)")
    }

    @Test func jsonGivesOneObjectPerSample() throws {
        let daemon = try Self.daemonWithEverySession()
        let text = try MonkeyctlClient(daemon).run("metrics")
        let json = try MonkeyctlClient(daemon).run("metrics", "--json")
        #expect(json.status == 0 && json.error == "", "\(json)")
        #expect(json.lines.count == text.lines.filter { !$0.hasPrefix("#") }.count)
        var types: [String: Int] = [:]
        for line in json.lines {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
            #expect(object["name"] is String && object["labels"] is [String: String], "\(line)")
            #expect(object["value"] is NSNumber || ["+Inf", "-Inf", "NaN"].contains(object["value"] as? String))
            types[object["type"] as? String ?? "?", default: 0] += 1
        }
        #expect(types["untyped"] == nil && types["?"] == nil, "\(types)")
        #expect(types["histogram"] ?? 0 > 0 && types["counter"] ?? 0 > 0 && types["gauge"] ?? 0 > 0)
        #expect(
            json.lines.contains(
                "{\"name\":\"monkeyd_session_typing\",\"type\":\"gauge\",\"labels\":{\"session\":\"stopped\"},\"value\":0}"
            ))
    }

    @Test func refusalsAndExitCodes() throws {
        let unreachable = try MonkeyctlProcess.run(["--socket", "/nonexistent/monkeyd.sock", "metrics"])
        #expect(unreachable.status == 3, "\(unreachable)")
        let extra = try MonkeyctlProcess.run(["--socket", "/nonexistent/monkeyd.sock", "metrics", "extra"])
        #expect(extra.status == 2 && extra.error.contains("too many arguments"), "\(extra)")
        let option = try MonkeyctlProcess.run(["--socket", "/nonexistent/monkeyd.sock", "metrics", "-n", "3"])
        #expect(option.status == 2, "\(option)")
    }
}
