import Testing

@testable import MonkeyCore

/// Every rule of `TickPlan`: the grid, the first tick, the coalescing and
/// catch-up windows, the timer's period and when followers are written.
struct TickPlanTests {
    /// A plan whose grid has this base step.
    static func grid(base: UInt64) -> TickPlan {
        var plan = TickPlan()
        plan.gridBase = base
        return plan
    }

    /// The longest of 1, 2, 5 and 10 base steps that divides the interval
    /// and is at most half of it; one base step when none is; none when
    /// the interval is not a whole number of base steps.
    @Test(
        arguments: [
            (1, nil), (5, nil), (55, nil), (105, nil), (1_001, nil),
            (10, 10), (20, 10), (30, 10), (40, 20), (50, 10), (60, 20), (90, 10),
            (100, 50), (120, 20), (140, 20), (150, 50), (200, 100), (240, 20), (250, 50), (300, 100),
            (350, 50), (450, 50), (500, 100), (600, 100), (1_000, 100), (1_010, 10), (1_020, 20),
            (1_050, 50), (86_400_000, 100),
        ] as [(UInt64, UInt64?)])
    func eachIntervalHasItsStep(milliseconds: UInt64, step: UInt64?) {
        let grid = Self.grid(base: ms(10))
        #expect(grid.step(forInterval: ms(milliseconds)) == step.map(ms))
    }

    @Test func noGridPutsEverySessionOffIt() {
        var grid = Self.grid(base: 0)
        #expect(grid.step(forInterval: ms(100)) == nil)
        #expect(grid.firstDue(interval: ms(100), now: ms(3)) == ms(103))
        grid.place(slot: 0, interval: ms(100))
        #expect(grid.gridPeriod == nil)
    }

    /// Only the first tick moves, on to the next point of the session's step
    /// (or stays, if it is on one); a session off the grid keeps its phase.
    @Test func theFirstTickMovesOnToTheNextPointOfItsStep() {
        let grid = Self.grid(base: ms(10))
        #expect(grid.firstDue(interval: ms(100), now: 0) == ms(100))
        #expect(grid.firstDue(interval: ms(100), now: 1) == ms(150))
        #expect(grid.firstDue(interval: ms(100), now: ms(50)) == ms(150))
        #expect(grid.firstDue(interval: ms(100), now: ms(51)) == ms(200))
        #expect(grid.firstDue(interval: ms(120), now: ms(21)) == ms(160))
        #expect(grid.firstDue(interval: ms(250), now: ms(12)) == ms(300))
        #expect(grid.firstDue(interval: ms(30), now: ms(12)) == ms(50))
        #expect(grid.firstDue(interval: ms(1_000), now: ms(12)) == ms(1_100))
        #expect(grid.firstDue(interval: ms(55), now: ms(12)) == ms(67))
    }

    /// Every point of every step in use is a multiple of the period, so a
    /// timer repeating with it from any such point serves them all.
    @Test func thePeriodDividesEveryStepInUse() {
        var grid = Self.grid(base: ms(10))
        #expect(grid.gridPeriod == ms(10), "none typing: any period serves")
        grid.place(slot: 0, interval: ms(100))
        grid.place(slot: 1, interval: ms(120))
        #expect(grid.gridPeriod == ms(10), "the divisor of 50 and 20 ms")
        grid.place(slot: 2, interval: ms(1_000))
        #expect(grid.gridPeriod == ms(10))
        grid.remove(slot: 1)
        #expect(grid.gridPeriod == ms(50))
        grid.place(slot: 3, interval: ms(250))
        #expect(grid.gridPeriod == ms(50), "250 ms ticks on 50 ms too")
        grid.remove(slot: 0)
        #expect(grid.gridPeriod == ms(50), "slot 3 still ticks on 50 ms")
        grid.remove(slot: 3)
        #expect(grid.gridPeriod == ms(100))
        grid.remove(slot: 3)
        #expect(grid.gridPeriod == ms(100), "removing twice changes nothing")
    }

    /// A session placed again (its interval changed) counts once, with its
    /// new step; one off the grid holds the period back until it leaves.
    @Test func placingASessionAgainReplacesItsStep() {
        var grid = Self.grid(base: ms(10))
        grid.place(slot: 0, interval: ms(100))
        grid.place(slot: 0, interval: ms(1_000))
        #expect(grid.gridPeriod == ms(100))
        grid.place(slot: 0, interval: ms(105))
        #expect(grid.gridPeriod == nil)
        grid.place(slot: 1, interval: ms(500))
        #expect(grid.gridPeriod == nil)
        grid.place(slot: 0, interval: ms(500))
        #expect(grid.gridPeriod == ms(100))
        grid.remove(slot: 0)
        grid.remove(slot: 1)
        #expect(grid.gridPeriod == ms(10))
    }

    /// A tick may run up to the coalescing window early, but never more
    /// than a sixteenth of its session's interval.
    @Test func aTickRunsEarlyByTheSmallerOfTheWindowAndASixteenthOfItsInterval() {
        let plan = TickPlan()
        #expect(plan.mayRun(due: ms(100), interval: ms(100), now: ms(97)))
        #expect(!plan.mayRun(due: ms(100), interval: ms(100), now: ms(97) - 1))
        #expect(plan.mayRun(due: ms(100), interval: ms(16), now: ms(99)))
        #expect(!plan.mayRun(due: ms(100), interval: ms(16), now: ms(99) - 1))
    }

    /// Late by less than the catch-up window: the next tick keeps the rate
    /// (it may be due at once); later: missed ticks are skipped, the phase kept.
    @Test(
        arguments: [
            (100, 100, 200), (100, 219, 200), (100, 220, 300), (100, 250, 300), (100, 420, 500), (100, 1_000, 1_100),
        ] as [(UInt64, UInt64, UInt64)])
    func lateTicksAreMadeUpOnlyWithinTheCatchUpWindow(due: UInt64, ranAt: UInt64, next: UInt64) {
        let plan = TickPlan()
        #expect(plan.nextDue(after: ms(due), interval: ms(100), now: ms(ranAt)).due == ms(next))
    }

    /// The timer repeats with the grid's period, or every coalescing window
    /// when sessions off the grid may all run that early; else it cannot repeat.
    @Test func theTimerPeriodServesEveryTypingSession() {
        var plan = TickPlan()
        plan.place(slot: 0, interval: ms(100))
        #expect(plan.timerPeriod == ms(50))
        plan.place(slot: 1, interval: ms(105))
        #expect(plan.timerPeriod == plan.coalescingWindow)
        plan.place(slot: 2, interval: ms(33))
        #expect(plan.hasShortIntervals && plan.timerPeriod == nil)
        plan.remove(slot: 2)
        plan.remove(slot: 1)
        #expect(!plan.hasShortIntervals && plan.timerPeriod == ms(50))
    }

    /// A follower gets its entries at once unless it was written to less
    /// than the spacing ago and a tick comes before the spacing ends.
    @Test func aFollowerIsWrittenAtOnceOrWithTheNextTick() {
        let spacing = TickPlan.followerWriteSpacing
        #expect(TickPlan.writesFollowerNow(lastWrite: 0, now: spacing, nextTick: spacing + 1))
        #expect(TickPlan.writesFollowerNow(lastWrite: ms(10), now: ms(11), nextTick: nil))
        #expect(TickPlan.writesFollowerNow(lastWrite: ms(10), now: ms(11), nextTick: ms(10) + spacing + 1))
        #expect(!TickPlan.writesFollowerNow(lastWrite: ms(10), now: ms(11), nextTick: ms(10) + spacing))
    }
}
