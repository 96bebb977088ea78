import Testing

@testable import MonkeyCore

struct IntervalTests {
    @Test(
        arguments: [
            ("250ms", 250_000_000, "250ms"),
            ("1.5s", 1_500_000_000, "1.5s"),
            ("2min", 120_000_000_000, "2min"),
            ("1h", 3_600_000_000_000, "1h"),
            ("100", 100_000_000, "100ms"),
            ("1.5ms", 1_500_000, "1.5ms"),
            ("0.25s", 250_000_000, "250ms"),
            ("1000ms", 1_000_000_000, "1s"),
            ("60s", 60_000_000_000, "1min"),
            ("90min", 5_400_000_000_000, "1.5h"),
            ("61min", 3_660_000_000_000, "61min"),
            ("1.001s", 1_001_000_000, "1.001s"),
            ("1.0005s", 1_000_500_000, "1000.5ms"),
            ("2.50s", 2_500_000_000, "2.5s"),
            ("007ms", 7_000_000, "7ms"),
            ("24h", 86_400_000_000_000, "24h"),
            ("1us", 1_000, "1us"),
            ("1.5us", 1_500, "1.5us"),
            ("1ns", 1, "1ns"),
            ("0", 0, "0ms"),
            ("0.000000001s", 1, "1ns"),
        ] as [(String, UInt64, String)])
    func parsesAndDescribes(text: String, nanoseconds: UInt64, description: String) throws {
        let interval = try #require(Interval(parsing: text))
        #expect(interval.nanoseconds == nanoseconds)
        #expect(interval.description == description)
        #expect(Interval(parsing: description) == interval)
    }

    @Test(arguments: [
        "", "1.", ".5s", "5 s", " 5s", "5s ", "-1", "+1", "1e3", "s", "ms", "min", "1.5.5s", "1,5s", "1m", "1sec",
        "1H", "1MS", "1mins", "0x10", "1.5ns", "1.0000000001s", "99999999999999999999", "5124096h", "١٢",
        "1\u{0}ms",
    ])
    func refusesWhatIsNotAnExactDuration(text: String) {
        #expect(Interval(parsing: text) == nil)
    }

    /// A bare whole number is milliseconds; a bare number with a fraction
    /// could as well be seconds, and is refused with the spellings meant.
    @Test(arguments: ["1.5", "0.5", "1.0", "007.25", "86400000.5"])
    func refusesABareNumberWithAFraction(text: String) {
        #expect(throws: Interval.ParseError.bareFraction(text)) { try Interval.parse(text) }
        #expect(Interval(parsing: text) == nil)
        #expect(
            Interval.ParseError.bareFraction(text).hint
                == ": a number without a unit is whole milliseconds; write \(text)s or \(text)ms")
    }

    @Test(arguments: ["1.", ".5", "1.5.5", "1.0000000001", "abc", ""])
    func refusesOtherNumbersWithoutAHint(text: String) {
        #expect(throws: Interval.ParseError.notADuration) { try Interval.parse(text) }
        #expect(Interval.ParseError.notADuration.hint == "")
    }

    @Test func aRangeIsCheckedAfterTheSpelling() throws {
        let range = Interval.millisecond...Interval.longestTick
        #expect(try Interval.parse("250ms", in: range) == Interval(nanoseconds: 250_000_000))
        #expect(throws: Interval.ParseError.outOfRange) { try Interval.parse("25h", in: range) }
        #expect(throws: Interval.ParseError.bareFraction("0.5")) { try Interval.parse("0.5", in: range) }
    }

    @Test(
        arguments: [
            1, 999, 1_000, 1_234, 1_000_000, 1_234_567, 1_234_567_891, 59_999_000_000, 3_599_999_000_000,
            7_200_000_000_001, 86_400_000_000_000, 123_456_789_000, UInt64.max,
            UInt64.max / 3_600_000_000_000 * 3_600_000_000_000,
        ] as [UInt64])
    func descriptionParsesBackExactly(nanoseconds: UInt64) throws {
        let interval = Interval(nanoseconds: nanoseconds)
        let parsed = try #require(Interval(parsing: interval.description), "\(interval.description)")
        #expect(parsed == interval)
    }

    @Test func seededDescriptionsParseBackExactly() throws {
        var random = WyRand(seed: 5)
        for _ in 0..<2_000 {
            // Mostly round values, as people write them, and some arbitrary ones.
            let scale: UInt64 = [1, 1_000, 1_000_000, 1_000_000_000][Int(random.next(below: 4))]
            let interval = Interval(nanoseconds: random.next(below: 100_000_000) * scale)
            #expect(Interval(parsing: interval.description) == interval, "\(interval.nanoseconds)")
        }
    }

    @Test func ordersByLength() {
        #expect(Interval.millisecond < Interval.defaultTick)
        #expect(Interval.defaultTick < Interval.longestTick)
        #expect(Interval.defaultTick.description == "100ms")
        #expect(Interval.longestTick.description == "24h")
    }
}
