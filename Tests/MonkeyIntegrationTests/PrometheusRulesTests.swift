import Foundation
import Testing

/// packaging/prometheus, the Prometheus configuration for a fleet: promtool
/// accepts the configurations and rules, its unit tests of the rules pass,
/// every rule is one of them, and the rules read only families the daemon
/// writes.
@Suite("Prometheus rules for a fleet")
struct PrometheusRulesTests {
    static let directory = JournalTests.repository.appendingPathComponent("packaging/prometheus").path
    static let ruleFiles = ["monkeyd.rules.yml", "monkeyd.alerts.yml"]
    static let testFile = "monkeyd.rules.test.yml"

    /// Families the rules read before the daemon writes them: those of corpus
    /// sessions, still to come (see monkeyd(8) once they are there).
    static let familiesToCome: Set = [
        "monkeyd_session_windows_total", "monkeyd_session_corpus_characters", "monkeyd_session_covered_characters",
    ]

    /// `promtool ARGUMENTS` in `directory`: its status and what it said.
    static func promtool(_ arguments: [String], in directory: String = directory) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: said, as: UTF8.self))
    }

    /// One rule of a rules file: its kind (`record` or `alert`), its name and
    /// its lines, from its `- record:` or `- alert:` line to the next rule's.
    struct Rule {
        let kind: String
        let name: String
        let lines: Range<Int>
    }

    /// The rules of a file as these files are laid out (one group, a rule
    /// starting at `      - record: NAME` or `      - alert: NAME`).
    static func rules(in text: String) -> [Rule] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var starts: [(kind: String, name: String, line: Int)] = []
        for (index, line) in lines.enumerated() {
            for kind in ["record", "alert"] where line.hasPrefix("      - \(kind): ") {
                starts.append((kind, String(line.dropFirst("      - \(kind): ".count)), index))
            }
        }
        return starts.enumerated().map { position, start in
            let end = position + 1 < starts.count ? starts[position + 1].line : lines.count
            return Rule(kind: start.kind, name: start.name, lines: start.line..<end)
        }
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
    }

    static let hasPromtool = FileManager.default.fileExists(atPath: "/usr/bin/promtool")

    @Test(.enabled(if: hasPromtool))
    func promtoolAcceptsTheRulesAndTheConfigurations() throws {
        let rules = try Self.promtool(["check", "rules"] + Self.ruleFiles)
        #expect(rules.status == 0, "promtool check rules: \(rules.output)")
        for configuration in ["prometheus.yml", "federation.yml"] {
            let check = try Self.promtool(["check", "config", configuration])
            #expect(check.status == 0, "promtool check config \(configuration): \(check.output)")
        }
    }

    @Test(.enabled(if: hasPromtool))
    func theUnitTestsOfTheRulesPass() throws {
        let result = try Self.promtool(["test", "rules", Self.testFile])
        #expect(result.status == 0, "promtool test rules: \(result.output)")
    }

    /// Each rule taken out of a copy of its file makes the unit tests fail:
    /// none goes untested. Each alert is also tested not firing.
    @Test(.enabled(if: hasPromtool))
    func everyRuleIsUnitTested() throws {
        let tests = try Self.text(Self.testFile)
        var names: [String] = []
        for file in Self.ruleFiles {
            let text = try Self.text(file)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for rule in Self.rules(in: text) {
                names.append(rule.name)
                let copy = TemporaryDirectory()
                for other in Self.ruleFiles + [Self.testFile] where other != file {
                    try FileManager.default.copyItem(
                        atPath: Self.directory + "/" + other, toPath: copy.path + "/" + other)
                }
                var kept = lines
                kept.removeSubrange(rule.lines)
                try kept.joined(separator: "\n").write(
                    toFile: copy.path + "/" + file, atomically: true, encoding: .utf8)
                let result = try Self.promtool(["test", "rules", Self.testFile], in: copy.path)
                #expect(result.status != 0, "no unit test fails without \(rule.kind) \(rule.name)")
                if rule.kind == "alert" {
                    #expect(
                        tests.contains("alertname: \(rule.name)\n        exp_alerts: []"),
                        "\(rule.name) is not tested while it does not fire")
                }
            }
        }
        #expect(names.count == 14, "\(names)")
    }

    /// `make install` (and so the Debian package) installs every file of
    /// packaging/prometheus but the unit tests.
    @Test func makeInstallInstallsEveryExample() throws {
        let makefile = try PackagingTests.text("packaging/install.mk")
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("PROMETHEUS_EXAMPLES := ") })
        let installed = Set(line.dropFirst("PROMETHEUS_EXAMPLES := ".count).split(separator: " ").map(String.init))
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory).filter { $0 != Self.testFile }
        #expect(installed == Set(files))
    }

    /// Every alert says what it means, for the person it wakes.
    @Test func everyAlertHasASummaryAndADescription() throws {
        let text = try Self.text("monkeyd.alerts.yml")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let alerts = Self.rules(in: text)
        #expect(alerts.count == 5 && alerts.allSatisfy { $0.kind == "alert" })
        for alert in alerts {
            let body = lines[alert.lines]
            for annotation in ["summary", "description"] {
                #expect(
                    body.contains { $0.hasPrefix("          \(annotation): ") }, "\(alert.name) has no \(annotation)")
            }
            #expect(body.contains { $0.hasPrefix("          severity: ") }, "\(alert.name) has no severity")
        }
    }

    /// The rules read the families the daemon writes (or will, for corpus
    /// sessions): a misspelt name would pass promtool's tests, which feed the
    /// rules series of the same name.
    @Test func theRulesReadOnlyFamiliesTheDaemonWrites() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s interval=1h")
        var written = Self.familiesToCome
        for line in try daemon.request("METRICS") where line.hasPrefix("# TYPE ") {
            let words = line.split(separator: " ")
            let family = String(words[2])
            written.insert(family)
            if words[3] == "histogram" { written.formUnion(["_bucket", "_sum", "_count"].map { family + $0 }) }
        }
        // Recorded names (level:metric:operations) are the rules' own.
        let pattern = try Regex(#"[a-z_:]*monkeyd_[a-z_]+"#)
        for file in Self.ruleFiles + ["federation.yml"] {
            let text = try Self.text(file)
            let names = Set(text.matches(of: pattern).map { String(text[$0.range]) }.filter { !$0.contains(":") })
            #expect(!names.isEmpty)
            for name in names where !written.contains(name) {
                // federation.yml matches families by a regular expression of their names.
                guard file == "federation.yml", name.hasSuffix("_") else {
                    Issue.record("\(file) reads \(name), which the daemon does not write")
                    continue
                }
            }
        }
    }
}
