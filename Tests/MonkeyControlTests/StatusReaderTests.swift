import MonkeyCore
import Testing

@testable import MonkeyControl

/// `StatusReader`, the fast way `top` reads STATUS, says what the general
/// way (`ResponseDecoder.record`, then `SessionFigures(Record)`) says, for
/// every line, the first time and every time after.
@Suite("Status reader")
struct StatusReaderTests {
    static func line(_ fields: [(String, String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        ResponseEncoder.append(Record(type: "session", fields: fields.map { (key: $0.0, value: $0.1) }), to: &bytes)
        return Array(bytes.dropLast())  // the LF
    }

    static func general(_ line: [UInt8]) -> SessionFigures? {
        (try? ResponseDecoder.record(String(decoding: line, as: UTF8.self))).flatMap(SessionFigures.init)
    }

    static let daemonLine: [(String, String)] = [
        ("name", "demo"), ("state", "running"), ("monkeys", "8"), ("interval", "100ms"),
        ("alphabet", "abcdefghijklmnopqrstuvwxyz "), ("target", "to be"), ("typed", "2041"), ("entries", "2041"),
        ("hits", "3"), ("best", "to b"), ("p_hit", "5.690e-05"), ("expected_entries", "1.758e+04"),
        ("expected_seconds", "1758"), ("chance", "1.094e-01"),
    ]

    @Test func aLineAsTheDaemonWritesIt() throws {
        var reader = StatusReader()
        let line = Self.line(Self.daemonLine)
        let read = reader.read(line)
        let figures = try #require(read)
        #expect(figures == Self.general(line))
        #expect(figures.target == "to be" && figures.intervalSeconds == 0.1 && figures.hits == 3)
        reader.finish()
        let again = reader.read(line)
        #expect(again == figures, "the same line again")
    }

    /// A corpus session: its coverage where a target's chance is, its
    /// longest run where best progress is.
    @Test func aCorpusSessionsLine() throws {
        let fields: [(String, String)] = [
            ("name", "bard"), ("state", "running"), ("monkeys", "9"), ("interval", "1ms"),
            ("alphabet", "abcdefghijklmnopqrstuvwxyz"), ("corpus", "shakespeare"), ("chunk", "9"), ("typed", "120"),
            ("entries", "120"), ("hits", "3"), ("works", "42"), ("corpus_chars", "3798744"), ("covered", "27"),
            ("coverage", "2.500e-01"), ("works_complete", "0"), ("windows", "120"), ("longest_run", "18"),
            ("longest_run_work", "hamlet"), ("expected_coverage", "6.0e-06"),
        ]
        var reader = StatusReader()
        let line = Self.line(fields)
        let read = reader.read(line)
        let figures = try #require(read)
        #expect(figures == Self.general(line))
        #expect(figures.corpus == "shakespeare" && figures.longestRun == 18 && !figures.hasTarget)
        reader.finish()
        #expect(reader.read(line) == figures)
        let snapshot = TopSnapshot(daemon: DaemonFigures(), sessions: [figures], takenAt: 1)
        let chance = TopTable.cell(.chance, figures, snapshot, width: 7, usesColor: false)
        #expect(chance.spans.map(\.text).joined() == TopFormat.chance(figures) && chance.spans.first?.text != "-")
        let best = TopTable.cell(.best, figures, snapshot, width: 16, usesColor: false)
        #expect(best.spans.map(\.text).joined() == "run 18")
    }

    @Test func linesThatAreNotSessionsOrNotLogfmt() {
        var reader = StatusReader()
        for text in [
            "session", "session ", "sessions name=a", "entry session=a id=1", "session name=a ", "session name=a  b=1",
            "session name=\"a", "session name=a b", "session =a", "session name=\"a\"b=1",
            "session state=running name=a",
            "session name=\"\\q\"", "session name=\"\\x4\"",
            "session name=a monkeys=+5 typed=-1 hits=99999999999999999999",
        ] {
            let line = Array(text.utf8)
            let read = reader.read(line)
            #expect(read == Self.general(line), "\(text)")
        }
    }

    /// Random lines (seeded, so a failure replays), each session read over
    /// and over as its figures change: what the reader keeps from last
    /// time never shows through.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomLinesAgainAndAgain(seed: UInt64) {
        var random = SplitMix(seed: seed)
        func pick(_ choices: [String]) -> String { choices[Int(random.next() % UInt64(choices.count))] }
        let texts = ["", "a", "to be", "q\"uote", "tab\there", "new\nline", "日本", "back\\slash", "=", "x y z"]
        let numbers = ["0", "7", "18446744073709551615", "18446744073709551616", "abc", "", "-3", "1.5"]
        let wides = ["never", "0", "1.758e+04", "5.690e-05", "1.213e-1449", "17576", "", "e"]
        let intervals = ["100ms", "1.5s", "2min", "1h", "250", "soon", ""]
        var reader = StatusReader()
        let names = ["a", "b.c", "c", "d-1", "long-name-\(String(repeating: "x", count: 40))", "z"]
        for _ in 0..<60 {
            // Mostly the daemon's order, sometimes sessions gone or new, now and then another order.
            var listed = names.filter { _ in random.next() % 4 != 0 }
            if random.next() % 5 == 0 { listed.reverse() }
            for name in listed {
                var fields: [(String, String)] = [("name", name)]
                for key in [
                    "state", "monkeys", "interval", "alphabet", "target", "typed", "entries", "hits", "best",
                    "expected_entries", "expected_seconds", "chance", "seed",
                ] where random.next() % 5 != 0 {
                    let value =
                        switch key {
                        case "state": pick(["running", "stopped", "RUNNING"])
                        case "monkeys", "typed", "entries", "hits", "seed": pick(numbers)
                        case "interval": pick(intervals)
                        case "expected_entries", "expected_seconds", "chance": pick(wides)
                        default: pick(texts)
                        }
                    fields.append((key, value))
                }
                let line = Self.line(fields)
                let read = reader.read(line)
                #expect(read == Self.general(line), "\(String(decoding: line, as: UTF8.self))")
            }
            reader.finish()
        }
    }
}
