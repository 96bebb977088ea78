import MonkeyCore
import Testing

@testable import MonkeyControl

/// The figures read from the daemon's lines, and the rates between two refreshes.
@Suite("Top snapshot")
struct TopSnapshotTests {
    static let lines = [
        "session name=fast state=running monkeys=4 interval=50ms alphabet=abcdefghijklmnopqrstuvwxyz target=ab "
            + "typed=23 entries=23 hits=1 best=ab p_hit=4.436e-03 expected_entries=2.254e+02 "
            + "expected_seconds=1.127e+01 chance=9.719e-02",
        "session name=hopeless state=stopped monkeys=1 interval=100ms alphabet=abcdefghijklmnopqrstuvwxyz "
            + "target=monkey typed=11 entries=11 hits=0 best=\"\" p_hit=0 expected_entries=never "
            + "expected_seconds=never chance=0",
        "session name=plain state=running monkeys=1 interval=1.5s alphabet=abc target=\"\" typed=11 entries=11 "
            + "hits=0 best=\"\" seed=42",
    ]

    static func sessions(_ lines: [String] = lines) throws -> [SessionFigures] {
        try lines.map { line in
            let record = try ResponseDecoder.record(line)
            return try #require(SessionFigures(record))
        }
    }

    @Test func statusLines() throws {
        let sessions = try Self.sessions()
        #expect(sessions[0].name == "fast")
        #expect(sessions[0].isRunning)
        #expect(sessions[0].monkeys == 4)
        #expect(sessions[0].intervalSeconds == 0.05)
        #expect(sessions[0].hits == 1)
        #expect(sessions[0].expectedSeconds.map(TopFormat.duration) == "11 s")
        #expect(TopFormat.chance(sessions[0]) == "9.7 %")
        #expect(sessions[1].isHopeless)
        #expect(TopFormat.wait(sessions[1]) == "never")
        #expect(TopFormat.chance(sessions[1]) == "0 %")
        #expect(!sessions[2].hasTarget)
        #expect(sessions[2].intervalSeconds == 1.5)
        #expect(TopFormat.wait(sessions[2]) == "-")
    }

    @Test func otherRecordsAreNotSessions() throws {
        #expect(SessionFigures(try ResponseDecoder.record("entry session=a id=1 number=1 text=q")) == nil)
    }

    @Test func ratesComeFromTheChangeInTyped() throws {
        var sessions = try Self.sessions()
        let first = TopSnapshot(daemon: DaemonFigures(), sessions: sessions, takenAt: 1_000_000_000)
        #expect(first.rate(of: first.sessions[0]) == 20, "the first time, what the interval sets")
        #expect(first.rate(of: first.sessions[1]) == 0, "stopped")
        sessions[0].typed += 38
        sessions[2].typed = 0  // cleared
        let second = TopSnapshot(
            daemon: DaemonFigures(), sessions: sessions, takenAt: 3_000_000_000, previous: first)
        #expect(second.rate(of: second.sessions[0]) == 19)
        #expect(second.rate(of: second.sessions[1]) == 0)
        #expect(second.sessions[2].measuredRate == nil)
        #expect(second.totalTyped == 23 + 38 + 11)
        #expect(second.totalHits == 1)
        #expect(second.runningCount == 2)
    }

    /// Sessions are matched by name: in step as the daemon lists them,
    /// past new and deleted ones, and in any other order too.
    @Test func sessionsAreMatchedByName() {
        func figures(_ names: [String]) -> [SessionFigures] { names.map { SessionFigures(name: $0) } }
        let before = figures(["a", "b", "c", "d"])
        #expect(TopSnapshot.positions(of: figures(["a", "a2", "c", "d", "e"]), in: before) == [0, nil, 2, 3, nil])
        #expect(TopSnapshot.positions(of: figures(["d", "c", "a"]), in: before) == [3, 2, 0])
        #expect(TopSnapshot.positions(of: figures(["b", "a", "c"]), in: before) == [1, 0, 2])
        #expect(TopSnapshot.positions(of: [], in: before) == [])
        #expect(TopSnapshot.positions(of: figures(["a"]), in: []) == [nil])
    }

    @Test func daemonFigures() {
        var daemon = DaemonFigures()
        daemon.read(hello: "monkeyd version=0.1.0 protocol=1")
        for line in [
            "# HELP monkeyd_clients Connected clients.", "# TYPE monkeyd_clients gauge",
            "monkeyd_start_time_seconds 1796083562.223481", "monkeyd_clients 3",
            "monkeyd_session_entries_total{session=\"a\"} 23",
        ] {
            daemon.read(metricsLine: line)
        }
        #expect(daemon == DaemonFigures(version: "0.1.0", startTime: 1_796_083_562.223481, clients: 3))
    }
}

/// Figures in few columns.
@Suite("Top format")
struct TopFormatTests {
    @Test(arguments: [
        (UInt64(0), 9, "0"), (17_576, 9, "17,576"), (12_345_678, 9, "12.3M"), (12_345_678, 10, "12,345,678"),
        (999_999, 6, "1.00M"), (1_000_000, 6, "1.00M"), (UInt64.max, 9, "18.4E"), (17_576, 5, "17.6k"),
    ])
    func counts(value: UInt64, width: Int, text: String) {
        #expect(TopFormat.count(value, width: width) == text)
    }

    @Test(arguments: [
        (0.0, "0"), (0.5, "0.5"), (9.94, "9.9"), (10, "10"), (1000.4, "1,000"), (123_456, "123,456"),
        (1_234_567, "1.23M"),
    ])
    func rates(value: Double, text: String) {
        #expect(TopFormat.rate(value) == text)
    }

    @Test(arguments: [
        (0.05, "50 ms"), (11.27, "11 s"), (1757.6, "29 min"), (9000, "2.5 h"), (200_000, "2.3 d"),
        (3.9e11, "12,358 y"), (1e20, "3.2e12 y"), (8.3e23, "2.6e16 y"), (3.2e107, "1e100 y"), (3.2e12, "1.0e5 y"),
    ])
    func durations(seconds: Double, text: String) {
        #expect(TopFormat.duration(WideNumber(seconds)) == text)
    }

    @Test func durationsBeyondADouble() throws {
        let huge = try #require(WideNumber(parsing: "1.213e+1449"))
        #expect(TopFormat.duration(huge) == "4e1441 y")
    }

    /// However hopeless, the wait fits its column: the largest mean wait
    /// within the limits (1,024 characters over 256, 24 h) included.
    @Test(arguments: ["1e-3", "119", "7199", "1.7e5", "6.3e7", "3.1e16", "9.96e107", "5e2470"])
    func waitsFitTheirColumn(seconds: String) throws {
        let value = try #require(WideNumber(parsing: seconds))
        let session = SessionFigures(name: "s", isRunning: true, target: "t", best: "", expectedSeconds: value)
        #expect(TopFormat.wait(session).count <= TopColumn.wait.minimumWidth, "\(TopFormat.wait(session))")
    }

    @Test(arguments: [(0.0, "0s"), (42, "42s"), (192, "3m 12s"), (7384, "2h 03m"), (273_600, "3d 04h")])
    func uptimes(seconds: Double, text: String) {
        #expect(TopFormat.uptime(seconds) == text)
    }
}
