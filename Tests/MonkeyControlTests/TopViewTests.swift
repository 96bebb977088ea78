import MonkeyCore
import Testing

@testable import MonkeyControl

/// Keys and answers change the view and say what the shell must do.
@Suite("Top view")
struct TopViewTests {
    static let now = TopFixtures.now

    @Test func spaceStopsARunningSessionAndStartsAStoppedOne() {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        #expect(view.handle(.space, now: Self.now) == [.send(.stop("s0"))])
        _ = view.handle(.down, now: Self.now)
        _ = view.handle(.down, now: Self.now)
        #expect(view.handle(.space, now: Self.now) == [.send(.start("s2"))])
        #expect(view.currentMessage(now: Self.now)?.text == "starting s2...")
    }

    @Test func clearAsksFirst() {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        #expect(view.handle(.character("c"), now: Self.now).isEmpty)
        #expect(view.prompt == .confirmClear("s0"))
        let asking = TopFixtures.text(TopFixtures.frame(view, columns: 120)).last ?? ""
        #expect(asking.hasPrefix("clear s0? Every entry goes"))
        #expect(view.handle(.character("y"), now: Self.now) == [.send(.clear("s0"))])
        #expect(view.prompt == nil)
    }

    @Test(arguments: [Key.character("n"), .escape, .space, .enter, .character("c")])
    func anyOtherKeyKeepsTheEntries(key: Key) {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        _ = view.handle(.character("c"), now: Self.now)
        #expect(view.handle(key, now: Self.now).isEmpty)
        #expect(view.prompt == nil)
        #expect(view.currentMessage(now: Self.now)?.text == "not cleared")
    }

    @Test func quitKeys() {
        var view = TopFixtures.view(TopFixtures.sessions(1))
        #expect(view.handle(.character("q"), now: Self.now) == [.quit])
        #expect(view.handle(.interrupt, now: Self.now) == [.quit])
        _ = view.handle(.character("c"), now: Self.now)
        #expect(view.handle(.interrupt, now: Self.now) == [.quit], "Ctrl-C quits even while asking")
    }

    @Test func enterShowsTheTailAndHidesItAgainOrSwitchesToAnotherSession() {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        #expect(view.handle(.enter, now: Self.now) == [.showTail("s0")])
        _ = view.handle(.down, now: Self.now)
        #expect(view.handle(.enter, now: Self.now) == [.showTail("s1")])
        #expect(view.handle(.enter, now: Self.now) == [.hideTail])
        #expect(view.tail == nil)
        _ = view.handle(.enter, now: Self.now)
        #expect(view.handle(.escape, now: Self.now) == [.hideTail])
    }

    @Test func oStepsThroughTheOrdersAndTheSelectionFollowsItsSession() {
        var view = TopFixtures.view(TopFixtures.sessions(8))
        _ = view.handle(.down, now: Self.now)
        #expect(view.selected == "s1")
        var seen: [TopSortOrder] = []
        for _ in TopSortOrder.allCases {
            _ = view.handle(.character("o"), now: Self.now)
            seen.append(view.order)
            #expect(view.selected == "s1")
            #expect(view.rows.count == 8)
        }
        #expect(seen == [.rate, .typed, .hits, .chance, .wait, .best, .name])
    }

    /// The hint says what `o` does next; after it, the last line still
    /// says which row is selected, and the order beside it.
    @Test func oSaysWhatItDoesNextAndTheRowStaysNamed() {
        var view = TopFixtures.view(TopFixtures.sessions(8))
        _ = view.handle(.down, now: Self.now)
        var text = TopFixtures.text(TopFixtures.frame(view, columns: 120))
        #expect(text[1].contains("o sort by rate"), "\(text[1])")
        #expect(text.last == "row 2 of 8, sorted by name")
        _ = view.handle(.character("o"), now: Self.now)
        text = TopFixtures.text(TopFixtures.frame(view, columns: 120))
        #expect(text[1].contains("o sort by typed"), "\(text[1])")
        #expect(text.last == "row \((view.selectedIndex ?? 0) + 1) of 8, sorted by rate")
        var empty = TopFixtures.view([])
        _ = empty.handle(.character("o"), now: Self.now)
        #expect(empty.currentMessage(now: Self.now)?.text == "sorted by rate", "no row to say it beside")
    }

    @Test(arguments: [
        (Key.character("x"), "'x'"), (.character("é"), "'é'"), (.left, "left"), (.tab, "tab"),
        (.control(0x01), "Ctrl-A"), (.backspace, "backspace"),
    ])
    func aKeyThatDoesNothingSaysSo(key: Key, name: String) {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        #expect(view.handle(key, now: Self.now).isEmpty)
        let message = view.currentMessage(now: Self.now)
        #expect(message?.text == "\(name) does nothing here; keys: up/down, PgUp/PgDn, space, c, enter, o, q")
        #expect(message?.tone == .warning)
        #expect(view.rows.count == 3 && view.selected == "s0", "and changes nothing")
    }

    @Test func escapeWithNothingToLeaveSaysNothing() {
        var view = TopFixtures.view(TopFixtures.sessions(3))
        #expect(view.handle(.escape, now: Self.now).isEmpty)
        #expect(view.currentMessage(now: Self.now) == nil)
    }

    @Test(arguments: TopSortOrder.allCases)
    func orders(order: TopSortOrder) {
        let snapshot = TopFixtures.snapshot(TopFixtures.sessions(8))
        let names = order.sorted(snapshot).map(\.name)
        let expected: [String] =
            switch order {
            case .name: ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]
            // 20/s (50 ms), then 10/s by name, stopped last.
            case .rate: ["s0", "s4", "s1", "s3", "s5", "s7", "s2", "s6"]
            case .typed: ["s1", "s5", "s4", "s2", "s6", "s3", "s7", "s0"]
            case .hits: ["s4", "s0", "s1", "s2", "s3", "s5", "s6", "s7"]
            case .chance: ["s0", "s4", "s1", "s5", "s2", "s6", "s3", "s7"]
            case .wait: ["s0", "s4", "s1", "s5", "s2", "s3", "s6", "s7"]
            case .best: ["s0", "s4", "s1", "s5", "s2", "s6", "s3", "s7"]
            }
        #expect(names == expected)
    }

    @Test func aRefusalIsAMessageNotAFailure() {
        var view = TopFixtures.view(TopFixtures.sessions(1))
        let effects = view.answered(
            .stop("s0"),
            .failure(.daemon(code: "denied", message: "only root, the daemon's user and members of group monkeyd may")),
            now: Self.now)
        #expect(effects.isEmpty)
        let message = view.currentMessage(now: Self.now)
        #expect(message?.tone == .warning)
        #expect(message?.text.hasPrefix("denied: only root") == true)
        #expect(view.currentMessage(now: Self.now + TopView.messageNanoseconds) == nil, "it goes after a while")
    }

    @Test func anAnswerRefreshesAndAWarningIsShown() {
        var view = TopFixtures.view(TopFixtures.sessions(1))
        #expect(view.answered(.stop("s0"), .success("stopped s0"), now: Self.now) == [.refresh])
        #expect(view.currentMessage(now: Self.now)?.text == "stopped s0")
        _ = view.answered(.start("s0"), .success("started s0; warning: never"), now: Self.now)
        #expect(view.currentMessage(now: Self.now)?.tone == .warning)
    }

    @Test func theSelectionStaysOnItsRowWhenItsSessionGoes() {
        var view = TopFixtures.view(TopFixtures.sessions(4))
        _ = view.handle(.down, now: Self.now)
        _ = view.handle(.down, now: Self.now)
        var sessions = TopFixtures.sessions(4)
        sessions.remove(at: 2)
        view.show(TopFixtures.snapshot(sessions))
        #expect(view.selected == "s3")
        view.show(TopFixtures.snapshot([]))
        #expect(view.selected == nil)
        #expect(view.handle(.space, now: Self.now).isEmpty)
    }

    @Test func theTailKeepsItsNewestLines() {
        var view = TopFixtures.view(TopFixtures.sessions(1))
        _ = view.handle(.enter, now: Self.now)
        for number in 1...(TopView.TailPane.capacity + 10) {
            view.tailed(Record(type: "entry", fields: [("number", String(number)), ("text", "x")]))
        }
        #expect(view.tail?.lines.count == TopView.TailPane.capacity)
        #expect(view.tail?.lines.last?.number == String(TopView.TailPane.capacity + 10))
    }
}
