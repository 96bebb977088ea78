import Foundation
import Glibc
import MonkeyCore
import Testing

/// Reproducible typing (monkeyd(8), Reproducible typing): with `seed=S`, an entry's
/// text is a function of the seed, its id, the monkeys and the alphabet,
/// whatever daemon types it, across restarts and crashes; `monkeyctl
/// replay` re-derives it.
@Suite("Seeds and odds")
struct SeedTests {
    static func log(_ daemon: DaemonProcess, _ session: String) throws -> [[String: String]] {
        try daemon.request("LOG \(session)").dropLast().map(fields)
    }

    @Test func twoDaemonsWithTheSameSeedTypeTheSameEntries() throws {
        var logs: [[String]] = []
        for _ in 0..<2 {
            let daemon = try DaemonProcess()
            _ = try daemon.request("START s seed=12345 monkeys=7 interval=1ms alphabet=abcxyz")
            #expect(try eventually { try Self.log(daemon, "s").count >= 50 })
            _ = try daemon.request("STOP s")
            logs.append(try Self.log(daemon, "s").prefix(50).map { "\($0["id"] ?? "") \($0["text"] ?? "")" })
            #expect(try fields(daemon.request("STATUS s")[0])["seed"] == "12345")
        }
        #expect(logs[0] == logs[1])
        #expect(
            Set(logs[0].map { $0.split(separator: " ").last ?? "" }).count > 40, "the texts differ from entry to entry")
    }

    /// Every entry of a seeded session, before and after kill -9, is what
    /// `monkeyctl replay` derives for its id.
    @Test func replayMatchesEveryLoggedEntryAcrossACrash() throws {
        let state = TemporaryDirectory()
        // Retention far above what is typed, so that the entries before the
        // crash are still there beside the ones after it.
        let configuration = "sync_interval = 20ms\nmax_entries = 100000\n"
        let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START s seed=18446744073709551615 monkeys=5 interval=10ms alphabet=äöüß🐒")
        #expect(try eventually { try Self.log(daemon, "s").count >= 30 })
        try daemon.stop(signal: SIGKILL)
        let again = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        #expect(try eventually { try Self.log(again, "s").count >= 60 })
        _ = try again.request("STOP s")
        let entries = try Self.log(again, "s")
        let ids = entries.compactMap { UInt64($0["id"] ?? "") }
        #expect(ids.count == entries.count && ids != Array(ids[0]...(ids.last ?? 0)), "a gap marks the crash")
        let alphabet = try #require(try? Alphabet(validating: "äöüß🐒", limit: 256))
        for entry in entries {
            let id = try #require(UInt64(entry["id"] ?? ""))
            #expect(entry["text"] == SeededTyping.text(seed: .max, id: id, monkeys: 5, alphabet: alphabet), "id \(id)")
        }
        // And through monkeyctl, for a few of them.
        for entry in entries.prefix(3) + entries.suffix(3) {
            let replayed = try MonkeyctlProcess.run([
                "replay", "--seed", "18446744073709551615", "--id", entry["id"] ?? "", "--monkeys", "5", "--alphabet",
                "äöüß🐒",
            ])
            #expect(replayed.status == 0 && replayed.lines == [entry["text"] ?? ""], "\(replayed)")
        }
    }

    /// `seed=` empty returns to fresh randomness; STATUS shows no seed then.
    @Test func anEmptySeedReturnsToFreshRandomness() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s seed=7 interval=1h")
        #expect(try daemon.request("SET s seed=") == ["OK updated s"])
        #expect(try fields(daemon.request("STATUS s")[0])["seed"] == nil)
        #expect(try daemon.request("SET s seed=-1").last?.hasPrefix("ERR bad-argument seed must be") == true)
        #expect(try daemon.request("SET s seed=18446744073709551616").last?.hasPrefix("ERR bad-argument") == true)
    }

    /// `monkeyctl start --seed` and `set --seed ""` reach the daemon as the
    /// setting; a bad seed is the daemon's one-line error.
    @Test func monkeyctlSetsAndClearsTheSeed() throws {
        let daemon = try DaemonProcess()
        let client = MonkeyctlClient(daemon)
        #expect(try client.run("start", "s", "--seed", "42", "--interval", "1h").status == 0)
        #expect(try fields(daemon.request("STATUS s")[0])["seed"] == "42")
        #expect(try client.run("set", "s", "--seed", "").status == 0)
        #expect(try fields(daemon.request("STATUS s")[0])["seed"] == nil)
        let bad = try client.run("set", "s", "--seed", "x")
        #expect(bad.status != 0 && bad.error.contains("seed must be"), "\(bad)")
        #expect(try client.run("odds", "--target", "a", "--seed", "1").status == 2, "odds takes no seed")
    }

    /// The figures of STATUS and of `monkeyctl odds` come from the same code.
    @Test func statusShowsTheOddsThatOddsComputes() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s target=abc monkeys=3 interval=100ms")
        let status = try fields(daemon.request("STATUS s")[0])
        #expect(status["p_hit"] == "5.690e-05" && status["expected_entries"] == "17576")
        #expect(status["expected_seconds"] == "1757.6" || status["expected_seconds"] == "1.758e+03")
        let odds = try MonkeyctlProcess.run(["odds", "--target", "abc", "--monkeys", "3", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data((odds.lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["p_hit"] as? Double == Double(status["p_hit"] ?? ""))
        #expect(object["expected_entries"] as? Double == Double(status["expected_entries"] ?? ""))
        let human = try MonkeyctlClient(daemon).run("status", "s")
        #expect(human.lines.first?.contains("1 in 17,576 · every ~29 minutes · chance so far ") == true, "\(human)")
    }
}
