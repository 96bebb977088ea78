import Testing

@testable import MonkeyCore

/// The tick timer's settings: one-shot at the next deadline, repeating
/// while ticks are dense, parked when nothing is due.
struct TickTimerSettingTests {
    static let window: UInt64 = 3_000_000

    @Test func sparseDeadlinesSetTheTimerOnceEach() {
        var timer = TickTimer()
        let far: UInt64 = 50_000_000
        #expect(timer.change(for: far, now: 0, period: Self.window) == .once(at: far))
        #expect(timer.change(for: far, now: 1, period: Self.window) == .none)
        timer.fired()
        #expect(timer.change(for: far, now: far, period: nil) == .once(at: far))
        #expect(timer.change(for: nil, now: far, period: Self.window) == .park)
        #expect(timer.change(for: nil, now: far, period: Self.window) == .none)
    }

    @Test func denseDeadlinesRepeatAndAreLeftAlone() {
        var timer = TickTimer()
        #expect(
            timer.change(for: 2_000_000, now: 0, period: Self.window)
                == .repeating(from: 2_000_000, every: Self.window))
        timer.fired()
        #expect(timer.change(for: 4_000_000, now: 2_000_000, period: Self.window) == .none)
        #expect(timer.isRepeating)
    }

    /// Leaving the repeating mode always changes the timer: nothing due
    /// parks it even though no one-shot deadline was armed.
    @Test(arguments: [nil, 40_000_000] as [UInt64?])
    func leavingTheRepeatingModeAlwaysSetsTheTimer(deadline: UInt64?) {
        var timer = TickTimer()
        _ = timer.change(for: 1_000_000, now: 0, period: Self.window)
        timer.fired()
        let change = timer.change(for: deadline, now: 1_000_000, period: Self.window)
        #expect(change == (deadline.map { .once(at: $0) } ?? .park))
        #expect(!timer.isRepeating)
    }

    /// A new period (a session joined or left the tick grid) sets the
    /// timer again, from the next deadline.
    @Test func aNewPeriodSetsTheRepeatingTimerAgain() {
        var timer = TickTimer()
        let grid: UInt64 = 10_000_000
        #expect(timer.change(for: grid, now: 1, period: grid) == .repeating(from: grid, every: grid))
        timer.fired()
        #expect(timer.change(for: 2 * grid, now: grid, period: grid) == .none)
        #expect(
            timer.change(for: grid + 2_000_000, now: grid + 1, period: Self.window)
                == .repeating(from: grid + 2_000_000, every: Self.window))
        #expect(timer.repeatingPeriod == Self.window)
        timer.fired()
        #expect(
            timer.change(for: 2 * grid, now: grid + 2_000_000, period: grid) == .repeating(from: 2 * grid, every: grid))
    }

    @Test func shortIntervalsKeepTheTimerOneShot() {
        var timer = TickTimer()
        _ = timer.change(for: 1_000_000, now: 0, period: Self.window)
        #expect(
            timer.change(for: 1_000_000, now: 0, period: nil) == .once(at: 1_000_000))
        #expect(timer.change(for: 0, now: 0, period: 0) == .once(at: 0))
    }
}
