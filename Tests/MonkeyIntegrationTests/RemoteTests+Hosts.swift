import Foundation
import Glibc
import Testing

/// `monkeyctl -H A -H B`: `status` and `coverage` of several hosts.
extension RemoteTests {
    /// `status` of several hosts: one table, the host first on each line
    /// (and `host` in JSON), each host's lines what it answers itself.
    @Test func statusOfSeveralHosts() throws {
        let fleet = try Fleet()
        _ = try fleet.alpha.request("START a1 interval=1h")
        _ = try fleet.alpha.request("START a2 interval=1h")
        _ = try fleet.beta.request("START b1 interval=1h monkeys=3")
        let both = try fleet.run(["-H", "alpha", "-H", "beta", "status"])
        #expect(both.status == 0 && both.error == "", "\(both)")
        let expected =
            try fleet.direct(fleet.alpha, ["status"]).lines.filter { !$0.isEmpty }.map { "alpha  " + $0 }
            + fleet.direct(fleet.beta, ["status"]).lines.filter { !$0.isEmpty }.map { "beta   " + $0 }
        #expect(both.lines == expected, "\(both)")
        let json = try fleet.run(["-H", "alpha", "-H", "beta", "--json", "status"])
        let hosts = json.lines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return "\(object["host"] ?? "?") \(object["name"] ?? "?")"
        }
        #expect(hosts == ["alpha a1", "alpha a2", "beta b1"], "\(json)")
        #expect(json.lines.first?.hasPrefix(#"{"type":"session","host":"alpha","#) == true, "\(json)")
    }

    /// A host that fails is reported; the others are still shown; the
    /// exit status is the failure's.
    @Test func aFailingHostAmongSeveral() throws {
        let fleet = try Fleet()
        _ = try fleet.beta.request("START b1 interval=1h")
        let result = try fleet.run(["-H", "nowhere", "-H", "beta", "status"])
        #expect(result.status == 3, "\(result)")
        #expect(result.lines.filter { !$0.isEmpty }.count == 1 && result.output.hasPrefix("beta     b1 "), "\(result)")
        #expect(result.error.contains("monkeyctl: cannot connect to monkeyd on nowhere: "), "\(result)")
        #expect(result.errorLines.last == "monkeyctl: 1 of 2 hosts failed", "\(result)")
    }

    /// Whether the daemon knows COVERAGE (corpus sessions): the coverage
    /// tests run once it does.
    static let daemonKnowsCoverage: Bool = {
        guard let daemon = try? DaemonProcess(), let help = try? daemon.request("HELP") else { return false }
        return help.contains { $0.contains("COVERAGE") }
    }()

    /// A fleet whose daemons have the corpus `small` in their corpus directory.
    static func corpusFleet() throws -> Fleet {
        let fleet = try Fleet()
        for daemon in [fleet.alpha, fleet.beta] {
            let directory = daemon.stateDirectory + "/corpora/small"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data("abba babba\n".utf8).write(to: URL(fileURLWithPath: directory + "/one.txt"))
            try Data("aab bba aabab bbbab aaaab".utf8).write(to: URL(fileURLWithPath: directory + "/two.txt"))
        }
        return fleet
    }

    /// `coverage` of the same session on two hosts with different seeds:
    /// the union of their bitmaps, no less than either host's and no more
    /// than both together, as each daemon gives them itself.
    @Test(.enabled(if: RemoteTests.daemonKnowsCoverage))
    func coverageOfSeveralHosts() throws {
        let fleet = try Self.corpusFleet()
        var covered: [Int] = []
        for (seed, daemon) in [fleet.alpha, fleet.beta].enumerated() {
            _ = try daemon.request("START c corpus=small alphabet=ab chunk=3 monkeys=4 interval=1ms seed=\(seed + 1)")
            #expect(try eventually { try Int(fields(daemon.request("STATUS c")[0])["windows"] ?? "0") ?? 0 >= 20 })
            _ = try daemon.request("STOP c")
            let header = try daemon.request("COVERAGE c format=bitmap")[0]
            covered.append(Int(try fields(header)["covered"] ?? "") ?? -1)
        }
        let result = try fleet.run(["-H", "alpha", "-H", "beta", "--json", "coverage", "c"])
        #expect(result.status == 0 && result.error == "", "\(result)")
        let total = try #require(result.lines.last { $0.contains(#""type":"coverage""#) }, "\(result)")
        // A count, and so a JSON number, as in every corpus session's record.
        let united = try #require(
            (try JSONSerialization.jsonObject(with: Data(total.utf8)) as? [String: Any])?["covered"] as? Int)
        #expect(united >= covered.max() ?? 0 && united <= covered.reduce(0, +), "\(united) of \(covered)")
        let table = try fleet.run(["-H", "alpha", "-H", "beta", "coverage", "c"])
        #expect(table.status == 0 && table.lines.first?.hasPrefix("WORK ") == true, "\(table)")
    }

    /// Another chunk on one host: refused, naming that host; nothing printed.
    @Test(.enabled(if: RemoteTests.daemonKnowsCoverage))
    func coverageOfDifferentExperiments() throws {
        let fleet = try Self.corpusFleet()
        _ = try fleet.alpha.request("START c corpus=small alphabet=ab chunk=3 interval=1h")
        _ = try fleet.beta.request("START c corpus=small alphabet=ab chunk=4 interval=1h")
        let result = try fleet.run(["-H", "alpha", "-H", "beta", "coverage", "c"])
        #expect(result.status == 1 && result.output == "", "\(result)")
        #expect(
            result.errorLines.last == "monkeyctl: beta does not run the experiment alpha runs: its chunk is 4, not 3")
    }
}
