import Foundation
import Testing

/// `monkeyctl --json`: JSON Lines whose members are the protocol's fields.
@Suite("monkeyctl --json")
struct MonkeyctlJSONTests {
    /// The protocol fields that are counts or ids, written as JSON numbers.
    static let numericFields: Set<String> = ["id", "number", "monkeys", "typed", "entries", "hits", "count"]

    @Test func entriesAreTheProtocolRecords() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        // Three letters of "ab": some entries contain the target, some do not.
        let records = try monkeyctl.typedEntries(
            daemon, "--alphabet", "ab", "--target", "ab", "--monkeys", "3", count: 30)
        #expect(records.contains { $0["hit"] == "yes" } && records.contains { $0["hit"] == nil })
        let log = try monkeyctl.run("--json", "log", "s")
        #expect(log.status == 0 && log.error == "", "\(log)")
        #expect(log.lines.count == records.count)
        for (line, record) in zip(log.lines, records) {
            try Self.check(line, matches: record)
            #expect(line.hasPrefix(#"{"type":"entry","session":"s","id":"#), "type first, then protocol order")
        }
        // The option works after the subcommand as well, and for tail.
        let tail = try monkeyctl.run("tail", "s", "--json")
        #expect(tail.lines == Array(log.lines.suffix(10)))
        #expect(try monkeyctl.run("log", "s", "-n", "2", "--json").lines == Array(log.lines.suffix(2)))
    }

    @Test func everyEntryOfAHitSessionHasHitTrue() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let records = try monkeyctl.typedEntries(
            daemon, "--alphabet", "a", "--target", "aa", "--monkeys", "3", count: 5)
        let log = try monkeyctl.run("--json", "log", "s")
        #expect(log.lines.count == records.count)
        for line in log.lines {
            let object = try Self.object(line)
            #expect(object["hit"] as? Bool == true, "\(line)")
            #expect(line.hasSuffix(#","text":"aaa","hit":true}"#), "\(line)")
        }
    }

    @Test func statusRecordsAreTheProtocolRecords() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        #expect(try monkeyctl.run("--json", "status").output == "", "no sessions: no objects")
        _ = try monkeyctl.run("start", "b", "--interval", "1h", "--target", #"say "hi" \ bye"#, "--alphabet", "hi ")
        _ = try monkeyctl.run("start", "a", "--interval", "1.5s", "--monkeys", "12")
        _ = try monkeyctl.run("stop", "a")
        let records = try daemon.request("STATUS").dropLast().map(fields)
        let all = try monkeyctl.run("--json", "status")
        #expect(all.status == 0, "\(all)")
        #expect(all.lines.count == 2)
        for (line, record) in zip(all.lines, records) {
            try Self.check(line, matches: record)
            #expect(line.hasPrefix(#"{"type":"session","name":"#))
        }
        let one = try monkeyctl.run("status", "b", "--json")
        #expect(one.lines.count == 1)
        let object = try Self.object(one.lines.first ?? "")
        #expect(object["target"] as? String == #"say "hi" \ bye"#)
        #expect(object["interval"] as? String == "1h", "durations stay strings")
        #expect(object["monkeys"] as? Int == 1)
    }

    @Test func statusLineAnswersAreOkObjects() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let cases: [(arguments: [String], message: String)] = [
            (["start", "--interval", "1h"], "started default"),
            (["set", "--monkeys", "2"], "updated default"),
            (["stop"], "stopped default"),
            (["clear"], "cleared default"),
            (["delete"], "deleted default"),
            (["ping"], "pong"),
            (["hello"], "monkeyd version=0.1.0 protocol=1"),
        ]
        for (arguments, message) in cases {
            let result = try monkeyctl.run(["--json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.lines == [#"{"ok":true,"message":"\#(message)"}"#], "\(arguments)")
            let object = try Self.object(result.lines.first ?? "")
            #expect(object["ok"] as? Bool == true)
            #expect(object["message"] as? String == message)
        }
        let version = try monkeyctl.run("version", "--json")
        #expect(version.lines == [#"{"ok":true,"message":"monkeyd version=0.1.0 protocol=1","client":"0.1.0"}"#])
        #expect(try Self.object(version.lines.first ?? "")["client"] as? String == "0.1.0")
    }

    @Test func errorsStayTextOnStandardError() throws {
        let daemon = try DaemonProcess()
        let result = try MonkeyctlClient(daemon).run("--json", "stop", "nope")
        #expect(result.status == 1)
        #expect(result.output == "")
        #expect(result.errorLines == ["monkeyctl: there is no session named nope (no-such-session)"])
    }

    /// Parses one line as a JSON object, as a consumer of JSON Lines would.
    /// monkeyctl(1)'s example of a session's object has the members, in
    /// order and of the kinds (number or string), that `status --json`
    /// prints for a session with those settings: the odds included.
    @Test func theManPagesSessionExampleIsWhatStatusPrints() throws {
        let page = try String(
            contentsOf: JournalTests.repository.appendingPathComponent("man/monkeyctl.1"), encoding: .utf8)
        let lines = page.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex { $0.hasPrefix(#"{"type":"session""#) })
        var example = ""
        for line in lines[start...] {
            example += line
            if line.hasSuffix("}") { break }
        }
        let shown = try Self.object(example)
        let daemon = try DaemonProcess()
        _ = try daemon.request(
            #"START default target="to be" monkeys=5 alphabet="abcdefghijklmnopqrstuvwxyz " interval=100ms"#)
        let status = try MonkeyctlClient(daemon).run("--json", "status", "default")
        let printed = try Self.object(try #require(status.lines.first, "\(status)"))
        func keys(_ line: String) -> [String] {
            line.matches(of: /"([a-z_]+)":/).map { String($0.1) }
        }
        #expect(keys(example) == keys(status.lines[0]), "\(example)\n\(status.lines[0])")
        for (key, value) in printed {
            #expect(type(of: value) == type(of: shown[key] ?? ()), "\(key): \(value) vs \(shown[key] ?? "none")")
        }
        #expect(shown["p_hit"] as? Double == printed["p_hit"] as? Double, "the odds of those settings")
    }

    static func object(_ line: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        guard let object = value as? [String: Any] else { throw TestFailure("not a JSON object: \(line)") }
        return object
    }

    /// Checks a JSON line against the protocol record it stands for: the
    /// same names, `type` added; counts as numbers, `hit` as true, the rest strings.
    static func check(_ line: String, matches record: [String: String]) throws {
        #expect(!line.contains("\n"))
        let object = try object(line)
        #expect(Set(object.keys) == Set(record.keys), "\(line) vs \(record)")
        for (key, text) in record {
            if numericFields.contains(key) {
                #expect(object[key] as? Int == Int(text), "\(key) in \(line)")
                #expect(!(object[key] is String), "\(key) is a JSON number in \(line)")
                #expect(line.contains(#""\#(key)":\#(text)"#), "\(key) unquoted in \(line)")
            } else if key == "rate" {
                #expect(object[key] as? Double == Double(text), "\(key) is a JSON number in \(line)")
            } else if ["p_hit", "expected_entries", "expected_seconds", "chance"].contains(key) && text != "never" {
                #expect(object[key] as? Double == Double(text), "\(key) in \(line)")
            } else if key == "hit" {
                #expect(text == "yes")
                #expect(object[key] as? Bool == true, "\(line)")
                #expect(line.contains(#""hit":true"#))
            } else {
                #expect(object[key] as? String == text, "\(key) in \(line)")
            }
        }
    }
}
