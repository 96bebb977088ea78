import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// The samples of one METRICS response, by series (`name{labels}` as
/// written), and the families' types.
struct MetricsScrape {
    let lines: [String]
    let values: [String: Double]
    let types: [String: String]

    init(_ daemon: DaemonProcess) throws {
        let response = try daemon.request("METRICS")
        #expect(response.last == "OK")
        self.init(lines: Array(response.dropLast()))
    }

    init(lines: [String]) {
        self.lines = lines
        var values: [String: Double] = [:]
        var types: [String: String] = [:]
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                let words = line.split(separator: " ")
                if words.count == 4 { types[String(words[2])] = String(words[3]) }
                continue
            }
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            values[String(line[..<space])] = value == "+Inf" ? .infinity : Double(value)
        }
        self.values = values
        self.types = types
    }

    subscript(_ series: String) -> Double? { values[series] }
}

/// The daemon's own counters (monkeyd(8), METRICS), counted as it works.
@Suite("Metrics counters")
struct MetricsCounterTests {
    @Test func requestsAreCountedByVerbAndResult() throws {
        let daemon = try DaemonProcess(configuration: "max_line_length = 64\n")
        let connection = try daemon.connect()
        for _ in 0..<3 { #expect(try connection.request("PING") == ["OK pong"]) }
        #expect(try connection.request("start a monkeys=abc").first?.hasPrefix("ERR bad-argument") == true)
        #expect(try connection.request("START a interval=1h") == ["OK started a"])
        #expect(try connection.request("STATUS nosuch").first?.hasPrefix("ERR no-such-session") == true)
        #expect(try connection.request("FROB").first?.hasPrefix("ERR unknown-command") == true)
        let tooLong = try connection.request(String(repeating: "x", count: 100))
        #expect(tooLong.first?.hasPrefix("ERR line-too-long") == true)
        let scrape = try MetricsScrape(daemon)
        #expect(scrape.types["monkeyd_requests_total"] == "counter")
        #expect(scrape["monkeyd_requests_total{verb=\"ping\",result=\"ok\"}"] == 3)
        #expect(scrape["monkeyd_requests_total{verb=\"start\",result=\"ok\"}"] == 1)
        #expect(scrape["monkeyd_requests_total{verb=\"start\",result=\"bad-argument\"}"] == 1)
        #expect(scrape["monkeyd_requests_total{verb=\"status\",result=\"no-such-session\"}"] == 1)
        #expect(scrape["monkeyd_requests_total{verb=\"unknown\",result=\"unknown-command\"}"] == 1)
        #expect(scrape["monkeyd_requests_total{verb=\"unknown\",result=\"line-too-long\"}"] == 1)
        #expect(scrape["monkeyd_requests_total{verb=\"metrics\",result=\"ok\"}"] == 1, "the METRICS asking")
        #expect(scrape["monkeyd_requests_total{verb=\"tail\",result=\"ok\"}"] == 0, "every verb has its ok series")
    }

    /// A WAIT is counted when it ends, with how it ended.
    @Test func aWaitIsCountedWithItsOutcome() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START quick alphabet=a target=a interval=1ms")
        _ = try daemon.request("START never target=monkey interval=1h")
        #expect(try daemon.request("WAIT never for=hit timeout=20ms").first?.hasPrefix("ERR timed-out") == true)
        #expect(try daemon.request("WAIT quick for=hit timeout=10s").last == "OK")
        _ = try daemon.request("STOP never")
        #expect(try daemon.request("WAIT never for=stopped").first?.hasPrefix("session ") == true, "met at once")
        let scrape = try MetricsScrape(daemon)
        #expect(scrape["monkeyd_requests_total{verb=\"wait\",result=\"timed-out\"}"] == 1)
        #expect(scrape["monkeyd_requests_total{verb=\"wait\",result=\"ok\"}"] == 2, "the hit, and stopped at once")
    }

    @Test func ticksAndSyncsAreTimed() throws {
        let daemon = try DaemonProcess(configuration: "sync_interval = 20ms\n")
        _ = try daemon.request("START a interval=10ms")
        #expect(
            try eventually {
                let scrape = try MetricsScrape(daemon)
                return scrape["monkeyd_tick_lateness_seconds_count"] ?? 0 >= 20
                    && scrape["monkeyd_sync_duration_seconds_count{log=\"entries\"}"] ?? 0 >= 2
            })
        let scrape = try MetricsScrape(daemon)
        #expect(scrape.types["monkeyd_tick_lateness_seconds"] == "histogram")
        #expect(scrape["monkeyd_sync_duration_seconds_count{log=\"control\"}"] ?? 0 >= 1, "the START")
        let ticks = scrape["monkeyd_tick_lateness_seconds_count"] ?? 0
        #expect(scrape["monkeyd_tick_lateness_seconds_bucket{le=\"+Inf\"}"] == ticks)
        #expect(scrape["monkeyd_tick_lateness_seconds_bucket{le=\"1\"}"] ?? 0 <= ticks)
        #expect(scrape["monkeyd_storage_errors_total{operation=\"entries\"}"] == 0)
    }

    /// A daemon suspended past the catch-up window skips the ticks it
    /// missed, and the counter says how many.
    @Test func ticksMissedWhileSuspendedAreCountedAsSkipped() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START a interval=10ms")
        #expect(try eventually { try MetricsScrape(daemon)["monkeyd_tick_lateness_seconds_count"] ?? 0 >= 5 })
        let before = try MetricsScrape(daemon)
        #expect(before.types["monkeyd_ticks_skipped_total"] == "counter")
        // The stimulus, not a wait for it: 200 ms stopped misses about 20 ticks.
        #expect(kill(daemon.pid, SIGSTOP) == 0)
        usleep(200_000)
        #expect(kill(daemon.pid, SIGCONT) == 0)
        #expect(
            try eventually {
                try MetricsScrape(daemon)["monkeyd_ticks_skipped_total"] ?? 0
                    >= (before["monkeyd_ticks_skipped_total"] ?? 0) + 10
            })
    }

    @Test func entriesAFollowerMissesAreCounted() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 4K\n")
        let follower = try daemon.connect()
        _ = try daemon.request("START fast monkeys=100 interval=1ms")
        // Never read: its 4 KiB fill up, and entries are skipped for it.
        try follower.send(line: "TAIL fast last=0")
        #expect(
            try eventually {
                try MetricsScrape(daemon)["monkeyd_follower_entries_lost_total"] ?? 0 > 100
            })
        try follower.send(line: "")
        var reported: UInt64 = 0
        while let line = try follower.readLine(), !line.hasPrefix("OK") {
            if line.hasPrefix("lost ") { reported += UInt64(try fields(line)["count"] ?? "0") ?? 0 }
        }
        _ = try daemon.request("STOP fast")
        let counted = try MetricsScrape(daemon)["monkeyd_follower_entries_lost_total"] ?? 0
        #expect(UInt64(counted) == reported, "the counter agrees with the lost records the follower got")
    }
}
