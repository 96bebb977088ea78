import Foundation
import Testing

/// What `make test` shows (scripts/run-tests): progress, every failure in
/// full with what its test printed, and the closing lines; nothing of the
/// tests that pass, not even arguments whose descriptions span lines, and
/// no XCTest preamble. Run on the test binary itself, with the two tests
/// of `FailsOnPurpose` below.
@Suite("make test output")
struct TestOutputTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Run {
        let status: Int32
        let lines: [String]
    }

    /// scripts/run-tests over the tests `filter` picks, as `make test` runs it.
    static func run(_ filter: String) throws -> Run {
        let scratch = TemporaryDirectory()
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/run-tests")
        process.arguments = [
            Binaries.directory + "/monkeydPackageTests.xctest", "--testing-library", "swift-testing", "--quiet",
            "--filter", filter,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["MONKEYD_FAIL_ON_PURPOSE"] = "1"
        environment["TEST_BUILD_DIR"] = scratch.path
        environment["TMPDIR"] = scratch.path
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, lines: text.split(separator: "\n").map(String.init))
    }

    @Test func aFailingTestIsShownInFullAndNothingElseIs() throws {
        let run = try Self.run("FailsOnPurpose")
        #expect(run.status == 1, "\(run.lines)")
        let progress = run.lines.filter { $0.hasPrefix("tests: ") }
        #expect(progress.first == "tests: 0 of 2 done" && progress.last == "tests: 2 of 2 done", "\(run.lines)")
        let rest = run.lines.filter { !$0.hasPrefix("tests: ") }
        // Swift Testing's own lines for the issue, its comment and what the test printed, in full.
        let source = try String(contentsOfFile: #filePath, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(source.firstIndex { $0.hasPrefix("        #expect(text == ") }) + 1
        let expected = [
            "printed by the test that fails",
            "✘ Test failsWithAMessageOverLines() recorded an issue at TestOutputTests.swift:\(line):9: "
                + #"Expectation failed: (text → "first line"#,
            #"second line") == "one line""#,
            "↳ a comment",
            "  over two lines",
        ]
        #expect(Array(rest.prefix(expected.count)) == expected, "\(run.lines)")
        #expect(
            rest.dropFirst(expected.count).first?.hasPrefix("✘ Test run with 2 tests in 1 suite failed after ") == true)
        #expect(rest.last == "1 passed, 1 failed", "\(run.lines)")
        #expect(rest.count == expected.count + 2, "nothing else: \(run.lines)")
    }

    @Test func aPassingRunShowsProgressAndTheClosingLinesOnly() throws {
        let run = try Self.run("FailsOnPurpose/passesWithArgumentsOverLines")
        #expect(run.status == 0, "\(run.lines)")
        #expect(run.lines.dropLast(2) == ["tests: 0 of 1 done", "tests: 1 of 1 done"], "\(run.lines)")
        #expect(run.lines.dropLast().last?.hasPrefix("✔ Test run with 1 test in 1 suite passed after ") == true)
        #expect(run.lines.last == "1 passed, 0 failed")
        #expect(!run.lines.contains { $0.contains("Executed 0 tests") || $0.contains("started") })
    }

    /// `make test` runs without XCTest, whose empty run printed
    /// `Executed 0 tests`: a test written with it would never run.
    @Test func noTestUsesXCTest() throws {
        let tests = Self.repository.appendingPathComponent("Tests")
        let enumerator = FileManager.default.enumerator(atPath: tests.path)
        var users: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: tests.appendingPathComponent(relative), encoding: .utf8)
            if text.split(separator: "\n").contains(where: { $0.hasSuffix("import XCTest") }) { users.append(relative) }
        }
        #expect(users.isEmpty, "Swift Testing only (make test passes --disable-xctest): \(users)")
    }
}

/// The tests `TestOutputTests` runs in a test binary of its own; skipped
/// in every other run.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["MONKEYD_FAIL_ON_PURPOSE"] == "1", "run by TestOutputTests"))
struct FailsOnPurpose {
    @Test(arguments: ["GET /metrics\r\nHost: x\r\n\r\n", "a\nb", "plain"])
    func passesWithArgumentsOverLines(text: String) {
        #expect(!text.isEmpty)
    }

    @Test func failsWithAMessageOverLines() {
        print("printed by the test that fails")
        let text = "first line\nsecond line"
        #expect(text == "one line", "a comment\nover two lines")
    }
}
