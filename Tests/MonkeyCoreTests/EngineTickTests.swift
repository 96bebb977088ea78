import Testing

@testable import MonkeyCore

struct EngineTickTests {
    @Test func oneEntryPerDueSessionThenRescheduled() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        for name in ["a", "b", "c"] { try harness.expectOK("START \(name)") }
        #expect(harness.engine.nextDeadline() == ms(100))
        #expect(harness.tick(now: ms(96)).entries.isEmpty, "not due yet, not even within the window")
        let typed = harness.tick(now: ms(100)).entries
        #expect(typed.map(\.session.text).sorted() == ["a", "b", "c"])
        #expect(typed.allSatisfy { $0.entry.id == 1 && $0.entry.number == 1 && $0.entry.text.count == 1 })
        #expect(store.appended == typed.map(\.entry), "every entry typed goes to the store")
        #expect(harness.engine.nextDeadline() == ms(200))
        #expect(harness.tick(now: ms(100)).entries.isEmpty, "nothing is typed twice for one tick")
    }

    @Test func coalescingWindowSharesOneWakeUp() throws {
        var harness = Harness()
        harness.engine.plan.gridBase = 0
        try harness.expectOK("START a", now: 0)
        try harness.expectOK("START b", now: 500_000)  // due half a millisecond later
        try harness.expectOK("START c", now: ms(4))
        #expect(harness.tick(now: ms(100)).entries.map(\.session.text).sorted() == ["a", "b"])
        #expect(harness.tick(now: ms(104)).entries.map(\.session.text) == ["c"])

        var strict = Harness()
        strict.engine.plan.coalescingWindow = 0
        strict.engine.plan.gridBase = 0
        try strict.expectOK("START a", now: 0)
        try strict.expectOK("START b", now: 500_000)
        #expect(strict.tick(now: ms(100)).entries.map(\.session.text) == ["a"])
        #expect(strict.engine.nextDeadline() == ms(100) + 500_000)
    }

    /// A session given the same due time twice (START, then SET of the same
    /// interval at the same instant) still types once per tick.
    @Test func aSessionScheduledTwiceForOneTimeTicksOnce() throws {
        var harness = Harness()
        try harness.expectOK("START a", now: 0)
        try harness.expectOK("SET a interval=100ms", now: 0)
        #expect(harness.tick(now: ms(100)).entries.count == 1)
        #expect(harness.engine.session(named: try #require(SessionName("a")))?.typed == 1)
    }

    /// A wake-up types its sessions in the order of their slots in the
    /// session table, whatever order they were started in (the walk through
    /// memory the processor can read ahead), and keeps that order after.
    @Test func aWakeUpTypesItsSessionsInSlotOrder() throws {
        var harness = Harness()
        let names = ["a", "b", "c", "d"]
        for name in names { try harness.expectOK("START \(name)", now: 0) }
        for name in names { try harness.expectOK("STOP \(name)", now: 0) }
        for name in names.reversed() { try harness.expectOK("START \(name)", now: ms(1)) }
        #expect(harness.tick(now: ms(150)).entries.map(\.session.text) == names)
        #expect(harness.tick(now: ms(250)).entries.map(\.session.text) == names)
    }

    /// Followed sessions tick first in a wake-up, and their entries are
    /// handed over (`afterFollowed`) before any other session ticks: a
    /// follower's entry does not wait for the others. The rest keep their
    /// slot order; one whose followers are gone goes back among them.
    @Test func followedSessionsTickFirstAndAreHandedOverBeforeTheOthers() throws {
        var harness = Harness()
        let names = ["a", "b", "c", "d", "e"]
        for name in names { try harness.expectOK("START \(name)", now: 0) }
        harness.engine.setFollowed(try #require(SessionName("d")), true)
        harness.engine.setFollowed(try #require(SessionName("b")), true)
        var handedOver: [[String]] = []
        var typed: [TypedEntry] = []
        _ = harness.engine.runDueTicks(now: ms(100), into: &typed) { followed in
            handedOver.append(followed.map(\.session.text))
        }
        #expect(handedOver == [["b", "d"]], "handed over before the others ticked, once")
        #expect(typed.map(\.session.text) == ["b", "d", "a", "c", "e"])
        #expect(typed.map(\.isFollowed) == [true, true, false, false, false])

        harness.engine.setFollowed(try #require(SessionName("b")), false)
        try harness.expectOK("DELETE d", now: ms(150))
        typed.removeAll()
        handedOver.removeAll()
        _ = harness.engine.runDueTicks(now: ms(200), into: &typed) { followed in
            handedOver.append(followed.map(\.session.text))
        }
        #expect(handedOver.isEmpty, "nothing followed: nothing handed over early")
        #expect(typed.map(\.session.text) == ["a", "b", "c", "e"])
    }

    /// When every due session is followed, they are handed over once, after
    /// the last of them.
    @Test func aWakeUpOfFollowedSessionsOnlyHandsThemOverOnce() throws {
        var harness = Harness()
        try harness.expectOK("START a", now: 0)
        harness.engine.setFollowed(try #require(SessionName("a")), true)
        var handedOver: [[String]] = []
        var typed: [TypedEntry] = []
        _ = harness.engine.runDueTicks(now: ms(100), into: &typed) { followed in
            handedOver.append(followed.map(\.session.text))
        }
        #expect(handedOver == [["a"]])
        #expect(typed.count == 1)
    }

    /// Given the store's journal records, a wake-up encodes each quiet
    /// entry into them as the store would (`JournalBatch.append`), and
    /// hands over as `TypedEntry` only the others: a followed session's,
    /// and those the store must see with the session's bookkeeping.
    @Test func quietEntriesAreEncodedIntoTheJournalAsTheyAreTyped() throws {
        let store = TestStore()
        store.entriesUnseen = 2
        var harness = Harness(store: store)
        for name in ["a", "b"] { try harness.expectOK("START \(name)", now: 0) }
        let (a, b) = (try #require(SessionName("a")), try #require(SessionName("b")))
        harness.engine.setFollowed(b, true)
        var journal = JournalBatch()
        var handedOver: [(String, UInt64)] = []
        for step in 1...4 {
            var typed: [TypedEntry] = []
            _ = harness.engine.runDueTicks(now: ms(100) * UInt64(step), into: &typed, journal: &journal)
            for item in typed {
                handedOver.append((item.session.text, item.entry.id))
                if let next = store.take(item) { harness.engine.setAttention(item.session, from: next) }
            }
        }
        // a's first entry needs the store's look, which asks to see id 4
        // next: 2 and 3 are quiet. b is followed: all of its entries come.
        #expect(handedOver.map(\.0) == ["b", "a", "b", "b", "b", "a"])
        #expect(handedOver.map(\.1) == [1, 1, 2, 3, 4, 4])
        let session = try #require(harness.engine.session(named: a))
        let log = session.log
        var expected = JournalBatch()
        for position in 1...2 { expected.append(log[position], session: a, epoch: session.epoch) }
        #expect(log[1].id == 2 && log[2].id == 3)
        journal.seal()
        expected.seal()
        #expect(journal.records.bytes == expected.records.bytes)
        // Where each entry lies and its session's hash for the grouping: the
        // tick's hash of the name, kept with the session, is the batch's own.
        #expect(journal.places != nil && journal.places == expected.places)
        let followed = try #require(harness.engine.session(named: b)).log
        #expect(
            store.recorded == [followed[1], followed[2]],
            "only the followed session's entries reached the store's bulk path; a's went to the journal alone")
    }

    /// A quiet entry's text goes into the log and the journal as bytes,
    /// with no `String`: what it leaves behind (the log, the journal's
    /// records, the counters, best progress, the `best` and `hit` events)
    /// is what the whole entry gives, for short texts that fit in the log's
    /// entry, long ones that do not, and characters of several bytes.
    @Test(arguments: [
        ("monkeys=3 alphabet=ab target=ab", false), ("monkeys=12 alphabet=ab target=aba", true),
        ("monkeys=4 alphabet=αβ target=αβ", true), ("monkeys=2 alphabet=xy seed=7 target=yy", false),
    ])
    func quietEntriesTypedAsBytesAreTheWholeEntries(settings: String, textsLongerThanAnEntryHolds: Bool) throws {
        func run(quiet: Bool) throws -> (log: [Entry], journal: [UInt8], events: [Event], session: Session) {
            var harness = Harness()
            try harness.expectOK("START a \(settings)")
            let name = try #require(SessionName("a"))
            var journal = JournalBatch()
            var events: [Event] = []
            for step in 1...40 as ClosedRange<UInt64> {
                var typed: [TypedEntry] = []
                events +=
                    quiet
                    ? harness.engine.runDueTicks(now: ms(100) * step, into: &typed, journal: &journal)
                    : harness.engine.runDueTicks(now: ms(100) * step, into: &typed)
                for item in typed {
                    if item.isQuiet { journal.append(item.entry, session: item.session, epoch: item.epoch) }
                    // Nothing more to see for the store: all after the first are quiet.
                    if item.needsAttention { harness.engine.setAttention(item.session, from: .max) }
                }
            }
            journal.seal()
            let session = try #require(harness.engine.session(named: name))
            return ((0..<session.log.count).map { session.log[$0] }, journal.records.bytes.map { $0 }, events, session)
        }
        let (bytes, whole) = (try run(quiet: true), try run(quiet: false))
        #expect(bytes.log.count == 40)
        #expect(bytes.log == whole.log)
        #expect(bytes.journal == whole.journal)
        #expect(bytes.events.map(\.fields) == whole.events.map(\.fields))
        #expect(bytes.events.map(\.kind) == whole.events.map(\.kind))
        #expect(bytes.session.snapshot == whole.session.snapshot)
        #expect(bytes.events.contains { $0.kind == .hit }, "the settings make hits")
        #expect(bytes.log.contains { $0.text.utf8.count > 7 } == textsLongerThanAnEntryHolds)
    }

    /// The daemon's timer may repeat every coalescing window only while no
    /// typing session's own window is shorter (a sixteenth of 48 ms is 3 ms).
    @Test func shortIntervalsAreKnownWhileTheirSessionsType() throws {
        var harness = Harness()
        try harness.expectOK("START slow")
        #expect(!harness.engine.plan.hasShortIntervals)
        try harness.expectOK("START fast interval=47ms")
        #expect(harness.engine.plan.hasShortIntervals)
        try harness.expectOK("SET fast interval=48ms")
        #expect(!harness.engine.plan.hasShortIntervals)
        try harness.expectOK("SET fast interval=1ms")
        #expect(harness.engine.plan.hasShortIntervals)
        try harness.expectOK("STOP fast")
        #expect(!harness.engine.plan.hasShortIntervals)
        try harness.expectOK("SET fast interval=2ms")
        #expect(!harness.engine.plan.hasShortIntervals, "a stopped session does not tick")
        try harness.expectOK("START fast")
        #expect(harness.engine.plan.hasShortIntervals)
        try harness.expectOK("DELETE fast")
        #expect(!harness.engine.plan.hasShortIntervals)
    }

    /// Sessions whose interval is a whole number of 10 ms steps tick on
    /// multiples of their grid step (50 ms for 100 ms and for 250 ms; see
    /// `TickPlan`), however their starts were spread, so that they share
    /// wake-ups; each still ticks once per interval. One off the grid (d)
    /// keeps its own phase, and ticks due within the coalescing window of a
    /// wake-up share it.
    @Test func sessionsOnTheTickGridShareItsPoints() throws {
        var harness = Harness()
        #expect(harness.engine.plan.gridBase == ms(10))
        try harness.expectOK("START a", now: ms(3))
        try harness.expectOK("START b", now: ms(20) - 1)
        try harness.expectOK("START c interval=250ms", now: ms(12))
        try harness.expectOK("START d interval=55ms", now: ms(12))
        try harness.expectOK("START e interval=30ms", now: ms(101))
        var wakeUps: [(UInt64, [String])] = []
        while let deadline = harness.engine.nextDeadline(), deadline <= ms(400) {
            wakeUps.append((deadline, harness.tick(now: deadline).entries.map(\.session.text).sorted()))
        }
        #expect(
            wakeUps.map(\.0)
                == [67, 122, 140, 150, 170, 177, 200, 230, 250, 260, 287, 290, 300, 320, 342, 350, 380, 397].map(ms))
        #expect(
            wakeUps.map(\.1) == [
                ["d"], ["d"], ["e"], ["a", "b"], ["e"], ["d"], ["e"], ["d", "e"], ["a", "b"], ["e"], ["d"], ["e"],
                ["c"], ["e"], ["d"], ["a", "b", "e"], ["e"], ["d"],
            ])
    }

    /// A timer repeating once per grid step serves sessions on the grid;
    /// one off the grid brings back the coalescing window, or a one-shot
    /// timer if its own window is shorter.
    @Test func theRepeatingPeriodFollowsTheSessionsOffTheGrid() throws {
        var harness = Harness()
        #expect(harness.engine.plan.timerPeriod == ms(10), "no session types: any period serves them")
        try harness.expectOK("START a")
        try harness.expectOK("START b interval=20ms")
        #expect(harness.engine.plan.timerPeriod == ms(10), "all on the grid, short intervals too")
        try harness.expectOK("STOP b")
        #expect(harness.engine.plan.timerPeriod == ms(50), "the step of 100 ms sessions")
        try harness.expectOK("SET a interval=105ms")
        #expect(harness.engine.plan.timerPeriod == harness.engine.plan.coalescingWindow)
        try harness.expectOK("START c interval=45ms")
        #expect(harness.engine.plan.timerPeriod == nil, "c may run less than a whole window early")
        try harness.expectOK("DELETE c")
        try harness.expectOK("SET a interval=1s")
        #expect(harness.engine.plan.timerPeriod == ms(100))
    }

    @Test func aLateDaemonSkipsMissedTicks() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        #expect(harness.tick(now: ms(1_050)).entries.count == 1)
        #expect(harness.engine.nextDeadline() == ms(1_100), "the next tick on the session's own schedule")
    }

    /// Sessions held up together (a long stall of the daemon) must not all
    /// fall due together afterwards, or every later wake-up runs them all.
    @Test func sessionsHeldUpTogetherKeepTheirOwnPhases() throws {
        var harness = Harness()
        harness.engine.plan.coalescingWindow = 0
        harness.engine.plan.gridBase = 0
        for (index, name) in ["a", "b", "c", "d"].enumerated() {
            try harness.expectOK("START \(name)", now: ms(UInt64(25 * index)))
        }
        #expect(harness.tick(now: ms(2_000)).entries.count == 4)
        var deadlines: [UInt64] = []
        var order: [String] = []
        for _ in 0..<4 {
            let deadline = harness.engine.nextDeadline()
            let now = try #require(deadline)
            deadlines.append(now)
            order += harness.tick(now: now).entries.map(\.session.text)
        }
        #expect(deadlines == [ms(2_025), ms(2_050), ms(2_075), ms(2_100)], "25 ms apart, as before the stall")
        #expect(order == ["b", "c", "d", "a"], "one session per wake-up")
    }

    @Test func aShortIntervalCoalescesLess() throws {
        var harness = Harness()
        harness.engine.plan.coalescingWindow = ms(3)
        try harness.expectOK("START slow", now: 0)  // due at 100 ms; may run 3 ms early
        try harness.expectOK("START fast interval=16ms", now: ms(86))  // due at 102 ms; at most 1 ms early
        #expect(harness.tick(now: ms(99)).entries.map(\.session.text) == ["slow"])
        #expect(harness.engine.nextDeadline() == ms(102), "the early one is still due as it was")
        #expect(harness.tick(now: ms(101)).entries.map(\.session.text) == ["fast"])
    }

    /// A wake-up late by less than the catch-up window makes up the ticks
    /// it missed at once, in the same call: a repeating timer would not
    /// come back for them before its next period, and a session left a
    /// period behind would stay behind.
    @Test func aTickLateByLessThanTheCatchUpWindowIsMadeUp() throws {
        var harness = Harness()
        try harness.expectOK("START a")
        let ticks = harness.tick(now: ms(205))
        #expect(ticks.entries.map(\.entry.id) == [1, 2], "the tick due at 100 ms and the one due at 200 ms")
        #expect(harness.engine.nextDeadline() == ms(300), "on the old schedule")
        try harness.expectOK("START b interval=10ms")
        _ = harness.tick(now: ms(300))
        let late = harness.tick(now: ms(328))
        #expect(late.entries.filter { $0.session.text == "b" }.count == 2, "b's ticks due at 310 and 320 ms")
        #expect(harness.engine.nextDeadline() == ms(330))
    }

    @Test func eachSessionKeepsItsOwnInterval() throws {
        var harness = Harness()
        try harness.expectOK("START fast interval=100ms")
        try harness.expectOK("START slow interval=250ms")
        var counts: [String: Int] = [:]
        var wakeUps = 0
        while let deadline = harness.engine.nextDeadline(), deadline <= ms(1_000) {
            wakeUps += 1
            for typed in harness.tick(now: deadline).entries { counts[typed.session.text, default: 0] += 1 }
        }
        #expect(counts == ["fast": 10, "slow": 4])
        #expect(wakeUps == 12, "ticks due at the same time share a wake-up")
    }

    @Test func hitsAreEvents() throws {
        var harness = Harness()
        try harness.expectOK("START a alphabet=ab monkeys=1 target=a")
        var hits: [Entry] = []
        var events: [Event] = []
        for step in 1...20 as ClosedRange<UInt64> {
            let result = harness.tick(now: ms(100 * step))
            hits += result.entries.map(\.entry).filter(\.isHit)
            events += result.events.filter { $0.kind == .hit }
        }
        #expect(!hits.isEmpty && hits.count < 20)
        #expect(events.map(\.kind) == Array(repeating: .hit, count: hits.count))
        for (event, entry) in zip(events, hits) {
            #expect(event.session?.text == "a" && event.peer == nil)
            #expect(
                event.fields == [
                    Event.Field("target", "a"), Event.Field("id", String(entry.id)),
                    Event.Field("number", String(entry.number)), Event.Field("text", entry.text),
                ])
        }
        #expect(harness.engine.summary.hits == UInt64(hits.count))
        #expect(harness.engine.summary.typed == 20)
    }

    @Test func sameSeedTypesTheSameEntries() throws {
        func run() throws -> [String] {
            var harness = Harness(seed: 31)
            try harness.expectOK("START a monkeys=5")
            try harness.expectOK("START b monkeys=3 alphabet=αβγ")
            return (1...10 as ClosedRange<UInt64>).flatMap { step in
                harness.tick(now: ms(100 * step)).entries.map { "\($0.session):\($0.entry.text)" }
            }
        }
        let first = try run()
        #expect(first.count == 20)
        #expect(try run() == first)
    }

    @Test func restoredSessionsTypeAgain() throws {
        var harness = Harness()
        let settings = SessionSettings(
            monkeys: 2, interval: Interval(nanoseconds: ms(50)), alphabet: try alphabet("q"),
            target: TargetMatcher(target: ""))
        let snapshot = SessionSnapshot(
            name: try sessionName("r"), settings: settings, isTyping: true, nextID: 8, nextNumber: 3, typed: 2, hits: 0,
            bestLength: 0)
        let entries = [
            Entry(id: 5, number: 1, text: "qq", isHit: false), Entry(id: 6, number: 2, text: "qq", isHit: false),
        ]
        let restored = Session(restoring: snapshot, entries: entries, retention: 100)
        let event = harness.engine.restore(restored, now: ms(1_000))
        #expect(event.kind == .restore && event.session?.text == "r")
        #expect(event.fields.contains(Event.Field("state", "running")))
        #expect(harness.engine.nextDeadline() == ms(1_050))
        let typed = harness.tick(now: ms(1_050)).entries.map(\.entry)
        #expect(typed == [Entry(id: 8, number: 3, text: "qq", isHit: false)])
        #expect(harness.engine.summary == (sessions: 1, typing: 1, typed: 3, hits: 0))

        let stopped = SessionSnapshot(
            name: try sessionName("s"), settings: settings, isTyping: false, nextID: 1, nextNumber: 1, typed: 0,
            hits: 0, bestLength: 0)
        _ = harness.engine.restore(Session(restoring: stopped, entries: [], retention: 100), now: ms(1_050))
        #expect(harness.tick(now: ms(5_000)).entries.map(\.session.text) == ["r"])
    }

    /// `nextDeadline` is documented as "nil when nothing is typing": a daemon
    /// that arms its timer from it must not wake up for sessions that stopped.
    @Test(arguments: ["STOP a", "DELETE a"])
    func noDeadlineOnceNothingTypes(line: String) throws {
        var harness = Harness()
        try harness.expectOK("START a")
        try harness.expectOK(line, now: ms(10))
        #expect(harness.engine.nextDeadline() == nil)
    }

    @Test func deadlineFollowsAnIntervalChange() throws {
        var harness = Harness()
        try harness.expectOK("START a interval=1s")
        try harness.expectOK("SET a interval=200ms", now: ms(10))
        #expect(harness.engine.nextDeadline() == ms(300), "210 ms, on to its 100 ms step")
        try harness.expectOK("SET a interval=2s", now: ms(20))
        #expect(harness.engine.nextDeadline() == ms(2_100), "2,020 ms, on to its 100 ms step")
    }
}
