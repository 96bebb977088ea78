import MonkeyCore
import Testing

@testable import MonkeyControl

/// Starts and stops shown at once, held over answers that cannot know them
/// yet and given up to the first answer that does; hits and best progress
/// shown only as an answer gives them.
@Suite("Top events")
struct TopEventTests {
    static func event(_ line: String) throws -> TopEvent? {
        TopEvent(try ResponseDecoder.record(line))
    }

    @Test func linesOfTheStream() throws {
        let head = "event id=7 time=2026-11-30T22:37:13.123Z"
        #expect(try Self.event("\(head) kind=hit session=a entry_id=2 number=2 text=ab") == .hit(session: "a"))
        #expect(try Self.event("\(head) kind=best session=a best=\"to b\"") == .best(session: "a", best: "to b"))
        #expect(try Self.event("\(head) kind=started session=a target=ab") == .started(session: "a"))
        #expect(try Self.event("\(head) kind=stopped session=a") == .stopped(session: "a"))
        for kind in ["created", "updated", "cleared", "deleted", "restored", "a-kind-of-tomorrow"] {
            #expect(try Self.event("\(head) kind=\(kind) session=a") == .changed(session: "a"))
        }
        #expect(try Self.event("lost count=12") == .changed(session: nil))
        #expect(try Self.event("entry session=a id=1 number=1 text=q") == nil)
        #expect(try Self.event("event id=8 kind=hit") == nil, "no session")
    }

    /// A view that has asked for STATUS once and shown its answer.
    static func view() -> TopView {
        var view = TopView(socketPath: "/s")
        view.link = .connected
        view.statusRequested()
        view.show(TopFixtures.snapshot(TopFixtures.sessions(4)))
        return view
    }

    static func row(_ view: TopView, _ name: String) -> SessionFigures? {
        view.rows.first { $0.name == name }
    }

    @Test func startsAndStopsShowAtOnce() throws {
        var view = Self.view()
        var outcome = view.heard(.stopped(session: "s1"))
        #expect(outcome == .shown)
        #expect(Self.row(view, "s1")?.isRunning == false)
        outcome = view.heard(.started(session: "s2"))
        #expect(outcome == .shown)
        #expect(Self.row(view, "s2")?.isRunning == true)
        let row = try #require(TopFixtures.text(TopFixtures.frame(view, columns: 120)).first { $0.hasPrefix(" s1 ") })
        #expect(row.contains("stopped"), "\(row)")
    }

    /// A hit or best progress is shown only with the answer to a STATUS
    /// asked after it, beside the TYPED of that answer: the first frame of
    /// a session just started never shows TYPED 0 beside a best of 1/3.
    @Test func hitsAndBestWaitForAnAnswerThatKnowsWhatWasTyped() throws {
        var view = TopView(socketPath: "/s")
        view.link = .connected
        view.statusRequested()
        var fresh = SessionFigures(
            name: "cat", isRunning: true, monkeys: 16, target: "cat", typed: 0, best: "",
            expectedEntries: WideNumber(1243), expectedSeconds: WideNumber(124.3), chance: .zero)
        view.show(TopFixtures.snapshot([fresh]))
        #expect(view.heard(.best(session: "cat", best: "c")) == .needsStatus)
        #expect(view.heard(.hit(session: "cat")) == .needsStatus)
        #expect(Self.row(view, "cat")?.best == "", "nothing typed that the answer knows of")
        #expect(Self.row(view, "cat")?.hits == 0)
        let first = try #require(
            TopFixtures.text(TopFixtures.frame(view, columns: 120)).first { $0.hasPrefix(">cat ") })
        #expect(first.contains("cat 0/3"), "\(first)")
        view.statusRequested()
        fresh.typed = 3
        fresh.hits = 1
        fresh.best = "cat"
        view.show(TopFixtures.snapshot([fresh]))
        let answered = try #require(
            TopFixtures.text(TopFixtures.frame(view, columns: 120)).first { $0.hasPrefix(">cat ") })
        #expect(answered.contains(" 3 ") && answered.contains(" 1 ") && answered.contains("cat 3/3"), "\(answered)")
    }

    @Test func whatOnlyStatusCanTellAsksForIt() {
        var view = Self.view()
        var outcome = view.heard(.changed(session: "s0"))
        #expect(outcome == .needsStatus)
        outcome = view.heard(.changed(session: nil))
        #expect(outcome == .needsStatus)
        outcome = view.heard(.stopped(session: "new"))
        #expect(outcome == .needsStatus, "a session top does not know yet")
        #expect(view.rows.count == 4)
    }

    /// An answer to a STATUS sent before the news arrived may not know it:
    /// the news stays over it; the answer to one sent after replaces it.
    @Test func newsOutlivesOlderAnswersOnly() {
        var view = Self.view()
        view.statusRequested()  // under way when the news comes
        let outcome = view.heard(.stopped(session: "s1"))
        #expect(outcome == .shown)
        view.show(TopFixtures.snapshot(TopFixtures.sessions(4)))
        #expect(Self.row(view, "s1")?.isRunning == false, "the older answer did not know the stop")
        view.statusRequested()
        var later = TopFixtures.sessions(4)
        later[1].isRunning = true  // started again meanwhile, as this answer knows
        view.show(TopFixtures.snapshot(later))
        #expect(Self.row(view, "s1")?.isRunning == true)
        #expect(view.news.isEmpty)
    }

    @Test func aClearForgetsTheNewsAndALostConnectionAllOfIt() {
        var view = Self.view()
        view.statusRequested()
        _ = view.heard(.stopped(session: "s0"))
        _ = view.heard(.stopped(session: "s1"))
        let outcome = view.heard(.changed(session: "s0"))
        #expect(outcome == .needsStatus)
        #expect(view.news.keys.sorted() == ["s1"])
        view.statusLost()
        #expect(view.news.isEmpty)
        view.statusRequested()
        view.show(TopFixtures.snapshot(TopFixtures.sessions(4)))
        #expect(Self.row(view, "s1")?.isRunning == TopFixtures.sessions(4)[1].isRunning, "what the new STATUS says")
    }

    /// Refreshes that events bring closer together than the rate window
    /// keep the rates of the last full window.
    @Test func ratesOverAWindowOfAtLeastOneRefreshPeriod() {
        var sessions = TopFixtures.sessions(1)
        let first = TopSnapshot(daemon: DaemonFigures(), sessions: sessions, takenAt: 1_000_000_000)
        sessions[0].typed += 20
        let second = TopSnapshot(daemon: DaemonFigures(), sessions: sessions, takenAt: 2_000_000_000, previous: first)
        #expect(second.rate(of: second.sessions[0]) == 20)
        sessions[0].typed += 1
        let soon = TopSnapshot(daemon: DaemonFigures(), sessions: sessions, takenAt: 2_100_000_000, previous: second)
        #expect(soon.rate(of: soon.sessions[0]) == 20, "0.1 s is too short a window")
        sessions[0].typed += 9
        let next = TopSnapshot(daemon: DaemonFigures(), sessions: sessions, takenAt: 3_000_000_000, previous: soon)
        #expect(next.rate(of: next.sessions[0]) == 10, "from the second snapshot: 10 entries in a second")
        var stopped = next.sessions[0]
        stopped.isRunning = false
        #expect(next.rate(of: stopped) == 0, "stopped")
    }

    @Test(arguments: [(0, 30), (100, 30), (1000, 50), (10_000, 500), (100_000, 500)])
    func theShortestGapBetweenRefreshesGrowsWithTheSessions(sessions: Int, milliseconds: UInt64) {
        #expect(TopLoop.shortestRefreshGap(sessions: sessions) == milliseconds * 1_000_000)
    }
}
