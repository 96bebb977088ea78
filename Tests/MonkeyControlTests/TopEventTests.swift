import MonkeyCore
import Testing

@testable import MonkeyControl

/// Events shown at once, held over answers that cannot know them yet, and
/// given up to the first answer that does.
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

    @Test func hitsBestStartsAndStopsShowAtOnce() throws {
        var view = Self.view()
        #expect(Self.row(view, "s0")?.hits == 0)
        var outcome = view.heard(.hit(session: "s0"))
        #expect(outcome == .shown)
        outcome = view.heard(.hit(session: "s0"))
        #expect(outcome == .shown)
        #expect(Self.row(view, "s0")?.hits == 2)
        #expect(view.snapshot?.totalHits == 2, "the header's total too")
        outcome = view.heard(.best(session: "s1", best: "monk"))
        #expect(outcome == .shown)
        #expect(Self.row(view, "s1")?.best == "monk")
        outcome = view.heard(.stopped(session: "s1"))
        #expect(outcome == .shown)
        #expect(Self.row(view, "s1")?.isRunning == false)
        outcome = view.heard(.started(session: "s2"))
        #expect(outcome == .shown)
        #expect(Self.row(view, "s2")?.isRunning == true)
        let row = try #require(TopFixtures.text(TopFixtures.frame(view, columns: 120)).first { $0.hasPrefix(" s1 ") })
        #expect(row.contains("stopped") && row.contains("monk"), "\(row)")
    }

    /// Best progress of a session scrolled out of view changes nothing on
    /// the screen; a hit changes the header's total wherever its row is.
    @Test func bestProgressOutOfViewNeedsNoDrawing() {
        var view = TopFixtures.view(TopFixtures.sessions(100))
        view.pageSize = 10
        var outcome = view.heard(.best(session: "s50", best: "mo"))
        #expect(outcome == .offScreen)
        #expect(view.rows[50].best == "mo", "taken in all the same")
        outcome = view.heard(.best(session: "s5", best: "mon"))
        #expect(outcome == .shown)
        outcome = view.heard(.hit(session: "s50"))
        #expect(outcome == .shown)
    }

    @Test func whatOnlyStatusCanTellAsksForIt() {
        var view = Self.view()
        var outcome = view.heard(.changed(session: "s0"))
        #expect(outcome == .needsStatus)
        outcome = view.heard(.changed(session: nil))
        #expect(outcome == .needsStatus)
        outcome = view.heard(.hit(session: "new"))
        #expect(outcome == .needsStatus, "a session top does not know yet")
        #expect(view.rows.count == 4)
    }

    /// An answer to a STATUS sent before the news arrived may not know it:
    /// the news stays over it; the answer to one sent after replaces it.
    @Test func newsOutlivesOlderAnswersOnly() {
        var view = Self.view()
        view.statusRequested()  // under way when the news comes
        var outcome = view.heard(.hit(session: "s0"))
        #expect(outcome == .shown)
        outcome = view.heard(.stopped(session: "s1"))
        #expect(outcome == .shown)
        view.show(TopFixtures.snapshot(TopFixtures.sessions(4)))
        #expect(Self.row(view, "s0")?.hits == 1, "the older answer did not know the hit")
        #expect(Self.row(view, "s1")?.isRunning == false)
        view.statusRequested()
        var later = TopFixtures.sessions(4)
        later[1].isRunning = true  // started again meanwhile, as this answer knows
        view.show(TopFixtures.snapshot(later))
        #expect(Self.row(view, "s0")?.hits == 0, "this one was asked after the news: it knows better")
        #expect(Self.row(view, "s1")?.isRunning == true)
        #expect(view.news.isEmpty)
    }

    /// An answer that knows more than the news is never taken back by it.
    @Test func newsNeverLowersAnAnswer() {
        var view = Self.view()
        view.statusRequested()
        let outcome = view.heard(.hit(session: "s0"))
        #expect(outcome == .shown)
        var knowing = TopFixtures.sessions(4)
        knowing[0].hits = 5
        knowing[0].best = "ab"
        view.show(TopFixtures.snapshot(knowing))
        #expect(Self.row(view, "s0")?.hits == 5)
    }

    @Test func aClearForgetsTheNewsAndALostConnectionAllOfIt() {
        var view = Self.view()
        view.statusRequested()
        _ = view.heard(.hit(session: "s0"))
        _ = view.heard(.hit(session: "s1"))
        let outcome = view.heard(.changed(session: "s0"))
        #expect(outcome == .needsStatus)
        #expect(view.news.keys.sorted() == ["s1"])
        view.statusLost()
        #expect(view.news.isEmpty)
        view.statusRequested()
        view.show(TopFixtures.snapshot(TopFixtures.sessions(4)))
        #expect(Self.row(view, "s1")?.hits == 0, "what the new connection's STATUS says")
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
