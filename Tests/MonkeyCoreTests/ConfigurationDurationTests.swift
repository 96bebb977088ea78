import Testing

@testable import MonkeyCore

/// Durations in monkeyd.conf follow the protocol's rule: a bare number is
/// whole milliseconds, and one with a fraction is refused with the
/// spellings meant.
struct ConfigurationDurationTests {
    @Test(arguments: ["sync_interval", "idle_timeout", "metrics_timeout"])
    func aBareNumberIsWholeMilliseconds(key: String) throws {
        let configuration = try Configuration.parse("\(key) = 1500\n")
        let expected = Interval(nanoseconds: 1_500_000_000)
        #expect(
            [configuration.syncInterval, configuration.idleTimeout, configuration.metricsTimeout].contains(expected))
    }

    @Test(arguments: ["sync_interval", "idle_timeout", "metrics_timeout"])
    func aBareNumberWithAFractionIsRefusedWithAHint(key: String) {
        #expect(
            throws: Configuration.Problem(
                line: 1,
                message: "\(key): expected a duration from 1ms to 24h, not '1.5': "
                    + "a number without a unit is whole milliseconds; write 1.5s or 1.5ms")
        ) { try Configuration.parse("\(key) = 1.5\n") }
    }
}
