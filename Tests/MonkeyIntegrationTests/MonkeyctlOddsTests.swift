import Foundation
import Testing

/// `monkeyctl odds` and `monkeyctl replay`, which need no daemon: the built
/// client, pointed at a socket where nothing listens.
@Suite("monkeyctl odds and replay")
struct MonkeyctlOddsTests {
    static let nowhere = ["--socket", "/nonexistent/monkeyd.sock"]

    static func run(_ arguments: String...) throws -> MonkeyctlResult {
        try MonkeyctlProcess.run(nowhere + arguments)
    }

    static func object(_ result: MonkeyctlResult) throws -> [String: Any] {
        let data = Data(result.output.utf8)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(result)")
    }

    @Test func humanOdds() throws {
        let result = try Self.run("odds", "--target", "abc", "--monkeys", "3")
        #expect(result.status == 0, "\(result)")
        #expect(result.lines == ["1 in 17,576 entries; about 29 minutes at 100ms"])
        #expect(result.error == "")
        // The defaults are a new session's: 1 monkey, a to z, 100ms.
        #expect(try Self.run("odds", "--target", "q").lines == ["1 in 26 entries; about 2.6 seconds at 100ms"])
        #expect(
            try Self.run("odds", "--target", "a", "--monkeys", "2", "--interval", "1h").lines == [
                "1 in 13.25 entries; about 13 hours at 1h"
            ])
        #expect(
            try Self.run("odds", "--target", "xy", "--alphabet", "xy", "--monkeys", "2", "--interval=1.5s").lines == [
                "1 in 4 entries; about 6 seconds at 1.5s"
            ])
        #expect(
            try Self.run("odds", "--target", "aaa", "--alphabet", "a", "--monkeys", "4").lines == [
                "every entry is a hit; one every 100ms"
            ])
    }

    @Test func oddsFarBeyondADouble() throws {
        let target = String(repeating: "a", count: 1024)
        let result = try Self.run("odds", "--target", target, "--monkeys", "1024", "--json")
        #expect(result.status == 0, "\(result)")
        let object = try Self.object(result)
        // 26^-1024, written exactly as STATUS writes it; strings, as no double holds them.
        #expect(object["p_hit"] as? String == "1.168e-1449")
        #expect(object["expected_entries"] as? String == "8.565e+1448")
        #expect(object["expected_seconds"] as? String == "8.565e+1447")
        #expect(
            try Self.run("odds", "--target", target, "--monkeys", "1024").lines == [
                "1 in 8.6e1448 entries; about 2.7e1440 years at 100ms"
            ])
    }

    @Test func jsonOdds() throws {
        let result = try Self.run("odds", "--json", "--target", "abc", "--monkeys", "3", "--interval", "1s")
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1)
        let object = try Self.object(result)
        #expect(object["target"] as? String == "abc")
        #expect(object["monkeys"] as? Int == 3)
        #expect(object["alphabet"] as? String == "abcdefghijklmnopqrstuvwxyz")
        #expect(object["interval"] as? String == "1s")
        #expect(object["p_hit"] as? Double == 5.690e-05)
        #expect(object["expected_entries"] as? Int == 17576)
        #expect(object["expected_seconds"] as? Int == 17576)
        #expect(object["impossibility"] == nil)
        #expect(result.output.contains(#""p_hit":5.690e-05,"expected_entries":17576,"expected_seconds":17576}"#))
    }

    @Test func impossibleTargets() throws {
        let lacking = try Self.run(
            "odds", "--target", "hey", "--alphabet", "abcdefghijklmnopqrstuvwx", "--monkeys", "5")
        #expect(lacking.status == 0, "\(lacking)")
        #expect(lacking.lines == [#"never: the alphabet lacks "y""#])
        let short = try Self.run("odds", "--target", "monkey")
        #expect(short.lines == ["never: entries of 1 character cannot hold a 6-character target"])
        let json = try Self.object(try Self.run("odds", "--json", "--target", "monkey"))
        #expect(json["p_hit"] as? Int == 0)
        #expect(json["expected_entries"] as? String == "never")
        #expect(json["expected_seconds"] as? String == "never")
        #expect(json["impossibility"] as? String == "entries of 1 character cannot hold a 6-character target")
    }

    /// The vectors of monkeyd(8), also checked against the core in SeededTypingTests.
    @Test(
        arguments: [
            (["--seed", "0", "--id", "1", "--monkeys", "10"], "mtwaanvqux"),
            (["--seed", "42", "--id", "1", "--monkeys", "10"], "qjbeibupwl"),
            (["--seed", "42", "--id", "2", "--monkeys", "10"], "kvgrvtmnqr"),
            (["--seed", "18446744073709551615", "--id", "7", "--monkeys", "12"], "hzmqfjrgdsuj"),
            (["--seed", "2024", "--id", "1000000", "--monkeys", "8", "--alphabet", "01"], "11110100"),
            (["--seed", "7", "--id", "3", "--monkeys", "6", "--alphabet", "äöü🐒"], "üöä🐒ä🐒"),
        ])
    func replay(_ arguments: [String], _ expected: String) throws {
        let result = try MonkeyctlProcess.run(Self.nowhere + ["replay"] + arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.lines == [expected])
        let json = try MonkeyctlProcess.run(Self.nowhere + ["replay", "--json"] + arguments)
        let object = try Self.object(json)
        #expect(object["text"] as? String == expected)
        #expect(object["id"] as? Int == Int(arguments[3]))
        #expect(json.output.hasPrefix(#"{"seed":\#(arguments[1]),"id":\#(arguments[3]),"#), "\(json)")
    }

    /// The test vectors printed in monkeyd(8) are what `replay` types.
    @Test func theManualsVectorsReplay() throws {
        let page = try String(
            contentsOf: JournalTests.repository.appendingPathComponent("man/monkeyd.8"), encoding: .utf8)
        let table = try #require(page.components(separatedBy: "Test vectors:\n").last)
        var checked = 0
        for line in table.split(separator: "\n") {
            if line.hasPrefix(".El") { break }
            let cells = line.split(separator: " Ta ").map {
                Self.unescaped(String($0).replacingOccurrences(of: "Li ", with: ""))
            }
            guard cells.count == 5, let seed = cells.first?.dropFirst(4), seed.allSatisfy(\.isNumber) else { continue }
            let alphabet = cells[3] == "a...z" ? "abcdefghijklmnopqrstuvwxyz" : cells[3]
            let result = try MonkeyctlProcess.run(
                Self.nowhere + [
                    "replay", "--seed", String(seed), "--id", cells[1], "--monkeys", cells[2], "--alphabet", alphabet,
                ])
            #expect(result.lines == [cells[4]], "\(line): \(result)")
            checked += 1
        }
        #expect(checked == 6, "the table has six vectors")
    }

    /// mandoc's `\[u00E4]` escapes as the characters they stand for.
    static func unescaped(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "\\[u") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "]"),
                let value = UInt32(rest[start.upperBound..<end], radix: 16), let scalar = Unicode.Scalar(value)
            else { return result + rest }
            result.unicodeScalars.append(scalar)
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    static let usageErrors: [(arguments: [String], message: String)] = [
        (["odds"], "'odds' needs --target TEXT"),
        (["odds", "--target", ""], "'odds' needs a target that is not empty"),
        (["odds", "--target", "a", "--monkeys", "0"], "--monkeys must be a whole number from 1 to 10000, not '0'"),
        (["odds", "--target", "a", "--monkeys", "+5"], "--monkeys must be a whole number from 1 to 10000, not '+5'"),
        (
            ["odds", "--target", "a", "--monkeys", "10001"],
            "--monkeys must be a whole number from 1 to 10000, not '10001'"
        ),
        (
            ["odds", "--target", "a", "--interval", "2m"],
            "--interval must be a duration from 1ms to 24h (like 250ms, 1.5s, 2min), not '2m'"
        ),
        (["odds", "--target", "a", "--alphabet", "aba"], "--alphabet repeats the character 'a'"),
        (["odds", "--target", "a", "--alphabet", ""], "--alphabet may not be empty"),
        (["odds", "--target", "a\u{7}"], "--target may not contain control characters"),
        (
            ["odds", "--target", String(repeating: "x", count: 1025)],
            "--target is 1025 bytes; at most 1024 are allowed"
        ),
        (["odds", "--target", "a", "extra"], "too many arguments for 'odds': 'extra'"),
        (["odds", "--target", "a", "-n", "3"], "'odds' does not take the option '-n'"),
        (["replay", "--id", "1", "--monkeys", "3"], "'replay' needs --seed S, --id ID and --monkeys N"),
        (["replay", "--seed", "1", "--monkeys", "3"], "'replay' needs --seed S, --id ID and --monkeys N"),
        (["replay", "--seed", "1", "--id", "1"], "'replay' needs --seed S, --id ID and --monkeys N"),
        (
            ["replay", "--seed", "-1", "--id", "1", "--monkeys", "3"],
            "--seed must be a whole number from 0 to 18446744073709551615, not '-1'"
        ),
        (
            ["replay", "--seed", "18446744073709551616", "--id", "1", "--monkeys", "3"],
            "--seed must be a whole number from 0 to 18446744073709551615, not '18446744073709551616'"
        ),
        (
            ["replay", "--seed", "1", "--id", "0", "--monkeys", "3"],
            "--id must be an entry id from 1 to 18446744073709551615, not '0'"
        ),
        (
            ["replay", "--seed", "1", "--id", "1", "--monkeys", "0"],
            "--monkeys must be a whole number from 1 to 10000, not '0'"
        ),
        (
            ["replay", "--seed", "1", "--id", "1", "--monkeys", "3", "--alphabet", "a\u{9F}"],
            "--alphabet may not contain control characters"
        ),
        (
            ["replay", "--seed", "1", "--id", "1", "--monkeys", "3", "--target", "x"],
            "'replay' does not take the option '--target'"
        ),
        (["stop", "--seed", "1"], "'stop' does not take the option '--seed'"),
        // start and set take --seed since issue 18; odds has no use for it.
        (["odds", "--target", "x", "--seed", "1"], "'odds' does not take the option '--seed'"),
    ]

    @Test(arguments: usageErrors)
    func usageErrorIsStatusTwo(_ arguments: [String], _ message: String) throws {
        let result = try MonkeyctlProcess.run(Self.nowhere + arguments)
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.output == "")
        #expect(result.errorLines == ["monkeyctl: \(message)", "Try 'monkeyctl --help'."], "\(arguments)")
    }

    @Test func helpDescribesBoth() throws {
        let odds = try Self.run("odds", "--help")
        #expect(odds.status == 0)
        #expect(odds.output.hasPrefix("Usage: monkeyctl odds --target TEXT"))
        let replay = try Self.run("help", "replay")
        #expect(replay.output.hasPrefix("Usage: monkeyctl replay --seed S --id ID --monkeys N"))
        let global = try Self.run("--help")
        #expect(global.output.contains("  odds --target TEXT [SETTINGS]"))
        #expect(global.output.contains("  replay --seed S --id ID --monkeys N"))
    }
}
