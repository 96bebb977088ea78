import Testing

@testable import MonkeyCore

/// The tick timer's settings: one-shot at the next deadline, repeating
/// while ticks are dense, parked when nothing is due.
struct TickTimerSettingTests {
    static let window: UInt64 = 3_000_000

    @Test func sparseDeadlinesSetTheTimerOnceEach() {
        var timer = TickTimer()
        let far: UInt64 = 50_000_000
        #expect(timer.change(for: far, now: 0, window: Self.window, hasShortIntervals: false) == .once(at: far))
        #expect(timer.change(for: far, now: 1, window: Self.window, hasShortIntervals: false) == .none)
        timer.fired()
        #expect(timer.change(for: far, now: far, window: Self.window, hasShortIntervals: true) == .once(at: far))
        #expect(timer.change(for: nil, now: far, window: Self.window, hasShortIntervals: false) == .park)
        #expect(timer.change(for: nil, now: far, window: Self.window, hasShortIntervals: false) == .none)
    }

    @Test func denseDeadlinesRepeatAndAreLeftAlone() {
        var timer = TickTimer()
        #expect(
            timer.change(for: 2_000_000, now: 0, window: Self.window, hasShortIntervals: false)
                == .repeating(from: 2_000_000, every: Self.window))
        timer.fired()
        #expect(timer.change(for: 4_000_000, now: 2_000_000, window: Self.window, hasShortIntervals: false) == .none)
        #expect(timer.isRepeating)
    }

    /// Leaving the repeating mode always changes the timer: nothing due
    /// parks it even though no one-shot deadline was armed.
    @Test(arguments: [nil, 40_000_000] as [UInt64?])
    func leavingTheRepeatingModeAlwaysSetsTheTimer(deadline: UInt64?) {
        var timer = TickTimer()
        _ = timer.change(for: 1_000_000, now: 0, window: Self.window, hasShortIntervals: false)
        timer.fired()
        let change = timer.change(for: deadline, now: 1_000_000, window: Self.window, hasShortIntervals: false)
        #expect(change == (deadline.map { .once(at: $0) } ?? .park))
        #expect(!timer.isRepeating)
    }

    @Test func shortIntervalsKeepTheTimerOneShot() {
        var timer = TickTimer()
        _ = timer.change(for: 1_000_000, now: 0, window: Self.window, hasShortIntervals: false)
        #expect(
            timer.change(for: 1_000_000, now: 0, window: Self.window, hasShortIntervals: true) == .once(at: 1_000_000))
        #expect(timer.change(for: 0, now: 0, window: 0, hasShortIntervals: false) == .once(at: 0))
    }
}
