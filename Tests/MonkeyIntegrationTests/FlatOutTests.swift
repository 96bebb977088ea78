import Foundation
import Glibc
import MonkeyCore
import Testing

/// Flat out (monkeyd(8), interval=0): a session types back to back on the
/// typing threads, the daemon answers meanwhile, STOP stops it, seeded
/// texts are those `monkeyctl replay` derives, and a crash gives no id twice.
@Suite("Flat-out typing")
struct FlatOutTests {
    static func status(_ daemon: DaemonProcess, _ session: String) throws -> [String: String] {
        try fields(daemon.request("STATUS \(session)")[0])
    }

    static func typed(_ daemon: DaemonProcess, _ session: String) throws -> UInt64 {
        UInt64(try status(daemon, session)["typed"] ?? "") ?? 0
    }

    @Test func aFlatOutSessionTypesWhileTheDaemonAnswersAndStops() throws {
        let daemon = try DaemonProcess(configuration: "typing_threads = 2\n")
        #expect(try daemon.request("START s interval=0 monkeys=3") == ["OK started s"])
        #expect(try Self.status(daemon, "s")["interval"] == "0ms")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > 10_000 })
        let before = try Self.typed(daemon, "s")
        #expect(try daemon.request("PING").last?.hasPrefix("OK") == true)
        // A rate needs two batches. Typing threads run at nice 10: under
        // ThreadSanitizer, beside other tests, a batch takes seconds; few
        // monkeys make small batches.
        #expect(try eventually(timeout: 60) { Double(try Self.status(daemon, "s")["rate"] ?? "") ?? 0 > 0 })
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > before })
        #expect(try daemon.request("STOP s") == ["OK stopped s"])
        let stopped = try Self.typed(daemon, "s")
        // A batch in flight when STOP came is discarded, never merged.
        #expect(try daemon.request("PING").last?.hasPrefix("OK") == true)
        #expect(try Self.typed(daemon, "s") == stopped)
        #expect(try Self.status(daemon, "s")["state"] == "stopped")
        #expect(try Self.status(daemon, "s")["rate"] == "0")
        let entries = try daemon.request("LOG s last=3").dropLast().map(fields)
        #expect(entries.count == 3 && entries.allSatisfy { $0["text"]?.count == 3 })
    }

    @Test func monkeyctlStartsAFlatOutSessionAndShowsItsPace() throws {
        let daemon = try DaemonProcess(configuration: "typing_threads = 1\n")
        let client = MonkeyctlClient(daemon)
        #expect(try client.run("start", "s", "--interval", "0", "--monkeys", "4").status == 0)
        #expect(
            try eventually(timeout: 60) {
                try client.run("status", "s").lines.first?.contains("4 monkeys flat out at ") == true
            })
        #expect(daemon.standardError.contains("created and started session s: 4 monkeys flat out ["))
        #expect(try client.run("stop", "s").status == 0)
        #expect(try client.run("status", "s").lines.first?.contains("4 monkeys flat out  typed ") == true)
    }

    @Test func aChangeWhileFlatOutAppliesToEveryLaterEntry() throws {
        let daemon = try DaemonProcess(configuration: "typing_threads = 1\n")
        _ = try daemon.request("START s interval=0 monkeys=5 alphabet=ab")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > 1000 })
        #expect(try daemon.request("SET s monkeys=7 alphabet=xyz") == ["OK updated s"])
        let changedAt = try Self.typed(daemon, "s")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > changedAt + 1000 })
        _ = try daemon.request("STOP s")
        let entries = try daemon.request("LOG s last=100").dropLast().map(fields)
        #expect(entries.count == 100)
        for entry in entries {
            let text = entry["text"] ?? ""
            #expect(text.count == 7 && text.allSatisfy { "xyz".contains($0) }, "\(entry)")
        }
        #expect(try daemon.request("CLEAR s") == ["OK cleared s"])
        _ = try daemon.request("START s")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > 100 })
        #expect(try daemon.request("DELETE s") == ["OK deleted s"])
        #expect(try daemon.request("PING").last?.hasPrefix("OK") == true)
    }

    /// The wait for a hit of a flat-out session is its expected entries at
    /// its rate: `never` until it has one, a number of seconds then.
    @Test func theExpectedWaitOfAFlatOutSessionFollowsItsRate() throws {
        let daemon = try DaemonProcess(configuration: "typing_threads = 1\n")
        _ = try daemon.request("START s interval=0 monkeys=10 target=zzzzzzzz")
        #expect(
            try eventually(timeout: 60) {
                let status = try Self.status(daemon, "s")
                return Double(status["rate"] ?? "") ?? 0 > 0 && Double(status["expected_seconds"] ?? "") != nil
            })
        _ = try daemon.request("STOP s")
        #expect(try Self.status(daemon, "s")["expected_seconds"] == "never")
    }

    @Test func seededEntriesTypedFlatOutAreWhatReplayDerives() throws {
        let daemon = try DaemonProcess(configuration: "typing_threads = 2\n")
        _ = try daemon.request("START s seed=99 monkeys=12 interval=0 alphabet=abcdef")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > 5000 })
        _ = try daemon.request("STOP s")
        let entries = try daemon.request("LOG s last=50").dropLast().map(fields)
        #expect(entries.count == 50)
        let alphabet = try #require(try? Alphabet(validating: "abcdef", limit: 256))
        for entry in entries {
            let id = try #require(UInt64(entry["id"] ?? ""))
            #expect(entry["text"] == SeededTyping.text(seed: 99, id: id, monkeys: 12, alphabet: alphabet), "id \(id)")
        }
        for entry in entries.prefix(2) + entries.suffix(2) {
            let replayed = try MonkeyctlProcess.run([
                "replay", "--seed", "99", "--id", entry["id"] ?? "", "--monkeys", "12", "--alphabet", "abcdef",
            ])
            #expect(replayed.status == 0 && replayed.lines == [entry["text"] ?? ""], "\(replayed)")
        }
    }

    @Test func killNineWhileFlatOutGivesNoIdTwice() throws {
        let state = TemporaryDirectory()
        let configuration = "sync_interval = 20ms\ntyping_threads = 2\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START s interval=0 monkeys=20")
        _ = try daemon.request("START t interval=1h")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > 20_000 })
        let seen = try daemon.request("LOG s last=10").dropLast().compactMap { UInt64(try fields($0)["id"] ?? "") }
        #expect(seen.count == 10)
        #expect(try daemon.request("SET t monkeys=9") == ["OK updated t"])
        try daemon.stop(signal: SIGKILL)
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        #expect(try Self.status(again, "t")["monkeys"] == "9", "an acknowledged change is kept")
        let highest = try #require(seen.max())
        var newest: UInt64 = 0
        #expect(
            try eventually(timeout: 60) {
                newest = UInt64(try again.request("LOG s last=1").dropLast().first.map(fields)?["id"] ?? "") ?? 0
                return newest > highest
            }, "the restored session types on, past every id seen before the kill: \(newest) vs \(highest)")
        _ = try again.request("STOP s")
    }

    /// Only the entries retained at a sync reach the disk: typing far more
    /// than `max_entries` writes little, and a restart finds the log as it was.
    @Test func whatReachesTheDiskIsBoundedByRetention() throws {
        let state = TemporaryDirectory()
        let configuration = "max_entries = 100\ntyping_threads = 1\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START s interval=0 monkeys=10")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "s") > 300_000 })
        _ = try daemon.request("STOP s")
        let before = try daemon.request("LOG s").dropLast()
        #expect(before.count == 100)
        #expect(try daemon.stop() == 0)
        let written = try FileManager.default.subpathsOfDirectory(atPath: state.path).reduce(0) { total, path in
            let attributes = try FileManager.default.attributesOfItem(atPath: state.path + "/" + path)
            return total + ((attributes[.size] as? Int) ?? 0)
        }
        #expect(written < 3_000_000, "\(written) bytes for 3 MB typed and 100 entries of 10 kept")
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        #expect(try again.request("LOG s").dropLast() == before)
    }

    /// A follower of a flat-out session reads what it can: entries it could
    /// not take are `lost` records, and the daemon serves others meanwhile.
    @Test func aStalledFollowerOfAFlatOutSessionLosesEntriesNotTheDaemon() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 64K\ntyping_threads = 1\n")
        let control = try daemon.connect()
        _ = try control.request("START fast interval=0 monkeys=3")
        let stalled = try daemon.connect()
        try stalled.send(line: "TAIL fast")
        let typedAtStart = try Self.typed(daemon, "fast")
        #expect(try eventually(timeout: 60) { try Self.typed(daemon, "fast") > typedAtStart })
        #expect(try control.request("PING") == ["OK pong"])
        var lost: UInt64 = 0
        var sawEntryAfterLost = false
        while let line = try stalled.readLine() {
            let record = try fields(line)
            if record["type"] == "lost" { lost += UInt64(record["count"] ?? "0") ?? 0 }
            if record["type"] == "entry" && lost > 0 {
                sawEntryAfterLost = true
                break
            }
        }
        #expect(lost > 0)
        #expect(sawEntryAfterLost)
        _ = try control.request("STOP fast")
    }
}
