import MonkeyCore
import Testing

@testable import MonkeyControl

/// The layout of `top`, as text, without a terminal: every width from a
/// narrow terminal to a wide one, no sessions to ten thousand.
@Suite("Top layout")
struct TopLayoutTests {
    static let widths = [40, 41, 52, 60, 80, 100, 120, 160, 200]
    static let manySessions = TopFixtures.sessions(10_000)

    /// Checks what every frame must be: one line per row, none wider than
    /// the terminal, and a screen built from it that matches.
    static func checkFits(_ frame: TopLayout.Frame, rows: Int, columns: Int) {
        #expect(frame.lines.count == rows)
        for (index, line) in frame.lines.enumerated() {
            #expect(line.width <= columns, "row \(index) is \(line.width) wide: \(line.plainText)")
        }
        let screen = Screen(size: Screen.Size(rows: rows, columns: columns), lines: frame.lines)
        for row in 0..<rows {
            #expect(DisplayWidth.of(screen.text(ofRow: row)) <= columns)
        }
    }

    @Test(arguments: widths, [0, 1, 10_000])
    func everyWidthAndCount(columns: Int, count: Int) {
        let view = TopFixtures.view(count == 10_000 ? Self.manySessions : TopFixtures.sessions(count))
        let frame = TopFixtures.frame(view, rows: 24, columns: columns)
        Self.checkFits(frame, rows: 24, columns: columns)
        let text = TopFixtures.text(frame)
        #expect(text[0].hasPrefix("monkeyd 0.1.0"))
        #expect(text[2].contains("NAME") && text[2].contains("STATE") && text[2].contains("BEST"))
        switch count {
        case 0:
            #expect(text[3].hasPrefix("no sessions"))
        case 1:
            #expect(text[3].hasPrefix(">s0 "))
            #expect(text[3].contains("running"))
        default:
            #expect(frame.tableRows == 24 - TopLayout.headerRows - TopLayout.footerRows)
            #expect(text[3].hasPrefix(">s0 "))
            #expect(text.last?.contains("row 1 of 10,000") == true || columns < 30)
        }
    }

    @Test(arguments: widths)
    func columnsGiveWayFromTheRightOfThePriorityList(columns: Int) {
        let table = TopTable(width: columns, longestName: 6)
        let shown = table.columns.map(\.column)
        #expect(shown.first == .name)
        #expect(shown.contains(.state) && shown.contains(.best))
        let total = TopTable.markerWidth + table.columns.reduce(0) { $0 + $1.width } + table.columns.count - 1
        #expect(total <= columns)
        if columns >= 100 { #expect(shown == TopColumn.allCases) }
    }

    @Test func theHeaderSaysVersionUptimeSessionsClientsAndTotals() {
        let text = TopFixtures.text(TopFixtures.frame(TopFixtures.view(TopFixtures.sessions(4)), columns: 120))
        #expect(
            text[0] == "monkeyd 0.1.0 | up 2h 03m | 4 sessions, 3 typing | 2 clients | typed 12,345,784 | 0 hits")
    }

    @Test func longNamesAreCutAndMarked() {
        let name = String(repeating: "n", count: 64)
        let view = TopFixtures.view([SessionFigures(name: name, isRunning: true)])
        for columns in Self.widths {
            let frame = TopFixtures.frame(view, columns: columns)
            Self.checkFits(frame, rows: 24, columns: columns)
            #expect(TopFixtures.text(frame)[3].contains("nnn…"))
        }
    }

    /// A target of 1,024 characters, half typed: the window shows where
    /// progress stops, with the count, in every width.
    @Test(arguments: widths)
    func aTargetLongerThanTheRow(columns: Int) {
        let target = String(repeating: "abcdefghij", count: 103).prefix(1024)
        let best = String(target.prefix(500))
        let session = SessionFigures(
            name: "long", isRunning: true, target: String(target), best: best, expectedEntries: nil, chance: .zero)
        let frame = TopFixtures.frame(TopFixtures.view([session]), columns: columns)
        Self.checkFits(frame, rows: 24, columns: columns)
        let row = TopFixtures.text(frame)[3]
        #expect(row.contains("500/1024"), "\(row)")
        #expect(row.contains("…"))
        // The highlighted part ends where progress stops: the 500th character.
        let bestSpans = frame.lines[3].spans.filter { $0.style.isBold && $0.style.color == .green }
        #expect(bestSpans.last?.text.hasSuffix("j") == true, "\(bestSpans)")
    }

    /// Wide characters count two columns; rows never overflow.
    @Test(arguments: widths, ["日本語のテキストを打つ猿", "🐒🙈🙉🙊🐒🙈🙉🙊", "éèêë ñ ü", "a\u{0301}b\u{0301}c"])
    func unicodeTargets(columns: Int, target: String) {
        let best = String(target.prefix(3))
        let session = SessionFigures(
            name: "ユニコード", isRunning: true, alphabet: target, target: target, best: best,
            expectedEntries: WideNumber(1e9), expectedSeconds: WideNumber(1e8), chance: WideNumber(1e-6))
        let frame = TopFixtures.frame(TopFixtures.view([session]), columns: columns)
        Self.checkFits(frame, rows: 24, columns: columns)
        #expect(TopFixtures.text(frame)[3].contains("3/\(target.count)"))
    }

    /// Control characters in names and targets from the daemon are shown
    /// escaped, never sent to the terminal.
    @Test func controlCharactersAreEscaped() {
        let session = SessionFigures(name: "x", target: "a\u{1B}[2Jb", best: "a")
        let row = TopFixtures.text(TopFixtures.frame(TopFixtures.view([session]), columns: 120))[3]
        #expect(row.contains("a\\x1b[2Jb"))
        #expect(!row.contains("\u{1B}"))
    }

    @Test func noColorMeansNoColourButTheSelectionStillShows() {
        let view = TopFixtures.view(TopFixtures.sessions(8))
        let frame = TopFixtures.frame(view, usesColor: false)
        for line in frame.lines {
            #expect(line.spans.allSatisfy { $0.style.color == .none })
        }
        #expect(TopFixtures.text(frame)[3].hasPrefix(">"))
        #expect(frame.lines[3].spans.allSatisfy { $0.style.isReversed })
        // The matched prefix stays visible without colour: bold and underlined.
        #expect(frame.lines[4].spans.contains { $0.style.isUnderlined && $0.text.hasPrefix("mon") })
    }

    @Test func theHopelessSessionSaysNever() {
        let row = TopFixtures.text(TopFixtures.frame(TopFixtures.view(TopFixtures.sessions(3)), columns: 120))[5]
        #expect(row.hasPrefix(" s2 "))
        #expect(row.contains("stopped"))
        #expect(row.contains("never"))
        #expect(row.contains("monkey 1/6"))
    }

    @Test func selectionMovesAndTheTableScrollsToKeepItInView() {
        var view = TopFixtures.view(Self.manySessions)
        _ = view.handle(.end, now: TopFixtures.now)
        var frame = TopFixtures.frame(view)
        view.firstRow = frame.firstRow
        view.pageSize = frame.tableRows
        #expect(frame.firstRow == 10_000 - frame.tableRows)
        var text = TopFixtures.text(frame)
        #expect(text[2 + frame.tableRows].hasPrefix(">s9999 "))
        _ = view.handle(.pageUp, now: TopFixtures.now)
        _ = view.handle(.pageUp, now: TopFixtures.now)
        frame = TopFixtures.frame(view)
        text = TopFixtures.text(frame)
        #expect(text.contains { $0.hasPrefix(">") })
        #expect(view.selectedIndex == 10_000 - 1 - 2 * (frame.tableRows - 1))
        _ = view.handle(.home, now: TopFixtures.now)
        #expect(TopFixtures.text(TopFixtures.frame(view))[3].hasPrefix(">s0 "))
    }

    @Test func theTailPaneTakesTheLowerThird() {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        #expect(view.handle(.enter, now: TopFixtures.now) == [.showTail("s0")])
        view.tailed(Record(type: "entry", fields: [("session", "s0"), ("id", "7"), ("number", "7"), ("text", "qwab")]))
        view.tailed(
            Record(type: "entry", fields: [("session", "s0"), ("number", "8"), ("text", "abab"), ("hit", "yes")]))
        view.tailed(Record(type: "lost", fields: [("count", "12")]))
        let frame = TopFixtures.frame(view, rows: 24, columns: 80)
        TopLayoutTests.checkFits(frame, rows: 24, columns: 80)
        let text = TopFixtures.text(frame)
        #expect(frame.tableRows == 20 - 7)
        #expect(text[16].hasPrefix("-- tail of s0 (enter hides) ---"))
        #expect(text[17] == "7. qwab")
        #expect(text[18] == "8. abab  *hit*")
        #expect(text[19] == "... 12 entries skipped")
        #expect(view.handle(.enter, now: TopFixtures.now) == [.hideTail])
        #expect(TopFixtures.frame(view).tableRows == 20)
    }

    /// Enter on a corpus session: its works' coverage in the lower pane,
    /// as COVERAGE answers, a work covered whole in bold.
    @Test func aCorpusSessionsPaneShowsItsWorks() {
        var sessions = TopFixtures.sessions(3)
        sessions[0].corpus = "plays"
        sessions[0].coverage = WideNumber(0.5)
        var view = TopFixtures.view(sessions)
        #expect(view.handle(.enter, now: TopFixtures.now) == [.showTail("s0")])
        #expect(view.tail?.works == [])
        #expect(TopFixtures.text(TopFixtures.frame(view))[17] == "(asking for the works)")
        let records = [
            Record(type: "work", fields: [("name", "hamlet"), ("chars", "200"), ("covered", "50")]),
            Record(type: "work", fields: [("name", "x"), ("chars", "4"), ("covered", "4")]),
        ]
        view.covered(records, of: "s1")
        #expect(view.tail?.works == [], "another session's answer is not this pane's")
        view.covered(records, of: "s0")
        let frame = TopFixtures.frame(view, rows: 24, columns: 80)
        TopLayoutTests.checkFits(frame, rows: 24, columns: 80)
        let text = TopFixtures.text(frame)
        #expect(text[16].hasPrefix("-- coverage of s0 (enter hides) ---"))
        #expect(text[17] == "hamlet   25.0 %  [#####...............]")
        #expect(text[18] == "x       100.0 %  [####################]")
        // A plain session's pane is its entries.
        #expect(view.handle(.down, now: TopFixtures.now) == [])
        #expect(view.handle(.enter, now: TopFixtures.now) == [.showTail("s1")])
        #expect(view.tail?.works == nil)
    }

    @Test func aLostDaemonIsABannerAndTheLastFiguresStay() {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        view.link = .lost(since: TopFixtures.wallClock - 12, reason: "Connection refused")
        let text = TopFixtures.text(TopFixtures.frame(view, columns: 120))
        #expect(text[0].contains("monkeyd is gone (Connection refused): reconnecting to /run/user/1000"))
        #expect(text[0].contains("for 12s"))
        #expect(text[3].hasPrefix(">s0 "))
    }

    @Test func tinyTerminalsGetWhatFits() {
        let view = TopFixtures.view(TopFixtures.sessions(10))
        for rows in 1...6 {
            for columns in [1, 5, 20, 40] {
                TopLayoutTests.checkFits(
                    TopFixtures.frame(view, rows: rows, columns: columns), rows: rows, columns: columns)
            }
        }
    }

    @Test func thePipeTableCutsNothing() {
        let target = String(repeating: "x", count: 300)
        var sessions = TopFixtures.sessions(4)
        sessions.append(SessionFigures(name: String(repeating: "n", count: 64), target: target, best: "xx"))
        let lines = TopLayout.snapshotTable(
            TopFixtures.snapshot(sessions), socketPath: "/s", width: nil, wallClock: TopFixtures.wallClock)
        #expect(lines.count == 2 + 5)
        #expect(lines[1].hasPrefix("NAME"))
        #expect(lines.last?.contains(target + " 2/300") == true)
        #expect(lines.last?.hasPrefix(String(repeating: "n", count: 64) + " stopped") == true)
        let cut = TopLayout.snapshotTable(
            TopFixtures.snapshot(sessions), socketPath: "/s", width: 60, wallClock: TopFixtures.wallClock)
        #expect(cut.allSatisfy { DisplayWidth.of($0) <= 60 })
    }
}
