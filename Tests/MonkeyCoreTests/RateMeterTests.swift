import Testing

@testable import MonkeyCore

/// `rate=`: entries per second over the last few seconds.
struct RateMeterTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aSteadyCountGivesItsRate() {
        var meter = RateMeter()
        for tick in 0...20 { meter.note(UInt64(tick) * 50, at: UInt64(tick) * Self.second / 2) }
        #expect(abs(meter.rate(at: 10 * Self.second) - 100) < 1)
    }

    @Test func nothingTypedLatelyIsZero() {
        var meter = RateMeter()
        #expect(meter.rate(at: Self.second) == 0)
        meter.note(10, at: Self.second)
        #expect(meter.rate(at: Self.second) == 0, "one sample is no rate")
        meter.note(20, at: 2 * Self.second)
        #expect(meter.rate(at: 2 * Self.second) == 10)
        #expect(meter.rate(at: 20 * Self.second) == 0)
    }

    @Test func aRateAfterAPauseForgetsTheTimeBefore() {
        var meter = RateMeter()
        meter.note(0, at: 0)
        meter.note(1000, at: Self.second)
        meter.note(1000, at: 100 * Self.second)
        meter.note(1010, at: 101 * Self.second)
        #expect(meter.rate(at: 101 * Self.second) == 10)
    }

    @Test(arguments: [(0.0, "0"), (0.25, "0.3"), (2.0, "2"), (99.94, "99.9"), (1234.4, "1234"), (.infinity, "0")])
    func ratesAreWrittenShort(rate: Double, text: String) {
        #expect(RateMeter.text(rate) == text)
    }
}

/// How big a flat-out batch is: about 4 M characters, the kept texts at most 1 M.
struct FlatOutBatchSizeTests {
    @Test(arguments: [
        (10_000, 1000, 104), (10_000, 10, 419), (100, 1000, 41_943), (100, 100_000, 10_485), (1, 10_000, 65_536),
        (1_000_000, 10, 1), (0, 1, 65_536),
    ])
    func batchesAreSizedByTheirWorkAndWhatTheyKeep(monkeys: Int, keep: Int, count: Int) {
        #expect(Engine.flatOutCount(monkeys: monkeys, keep: keep) == count)
    }
}
