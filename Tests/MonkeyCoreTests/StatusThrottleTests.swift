import MonkeyCore
import Testing

@Suite("Status throttle")
struct StatusThrottleTests {
    let second: UInt64 = 1_000_000_000

    @Test func firstStatusGoesOutAtOnce() {
        var throttle = StatusThrottle()
        #expect(throttle.fire("0 sessions", now: 5) == "0 sessions")
        #expect(throttle.armedDeadline == nil)
    }

    @Test func changesWithinAPeriodAreCoalescedIntoOneTimer() {
        var throttle = StatusThrottle()
        _ = throttle.fire("a", now: 10 * second)
        #expect(throttle.noteChange(now: 10 * second + 1) == 11 * second)
        for offset in [UInt64(2), 100, 999_999] { #expect(throttle.noteChange(now: 10 * second + offset) == nil) }
        #expect(throttle.fire("b", now: 11 * second) == "b")
        #expect(throttle.noteChange(now: 11 * second + 7) == 12 * second)
    }

    @Test func aChangeLongAfterTheLastStatusIsSentWithoutDelay() {
        var throttle = StatusThrottle()
        _ = throttle.fire("a", now: 0)
        #expect(throttle.noteChange(now: 50 * second) == 50 * second)
    }

    @Test func anUnchangedLineIsNotSentAgain() {
        var throttle = StatusThrottle()
        _ = throttle.fire("a", now: 0)
        _ = throttle.noteChange(now: 1)
        #expect(throttle.fire("a", now: second) == nil)
        #expect(throttle.armedDeadline == nil, "nothing stays armed: an idle daemon sleeps")
        _ = throttle.noteChange(now: 2 * second)
        #expect(throttle.fire("b", now: 2 * second) == "b")
    }

    @Test func sentLinesAreAtLeastAPeriodApart() {
        var throttle = StatusThrottle()
        var random = WyRand(seed: 7)
        var now: UInt64 = 0
        var sentAt: [UInt64] = []
        for step in 0..<10_000 {
            now += random.next() % (second / 10)
            if let deadline = throttle.noteChange(now: now) { now = max(now, deadline) }
            if throttle.armedDeadline == now, throttle.fire("line \(step)", now: now) != nil { sentAt.append(now) }
        }
        #expect(sentAt.count > 10)
        for (earlier, later) in zip(sentAt, sentAt.dropFirst()) { #expect(later - earlier >= second) }
    }
}
