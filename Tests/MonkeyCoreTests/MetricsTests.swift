import Testing

@testable import MonkeyCore

/// The exposition writer and the counts behind the daemon's own families.
struct MetricsTests {
    @Test func aDurationHistogramCountsIntoCumulativeBucketsInSeconds() {
        var histogram = DurationHistogram(bounds: [1_000_000, 5_000_000])
        for nanoseconds: UInt64 in [0, 1_000_000, 1_000_001, 4_000_000, 9_000_000] {
            histogram.observe(nanoseconds: nanoseconds)
        }
        var output: [UInt8] = []
        Exposition.append(MetricFamily("t_seconds", .histogram, help: "h", samples: histogram.samples()), to: &output)
        #expect(
            String(decoding: output, as: UTF8.self) == """
                # HELP t_seconds h
                # TYPE t_seconds histogram
                t_seconds_bucket{le="0.001"} 2
                t_seconds_bucket{le="0.005"} 4
                t_seconds_bucket{le="+Inf"} 5
                t_seconds_sum 0.015000001
                t_seconds_count 5

                """)
        #expect(histogram.count(atMost: 1_000_000) == 2 && histogram.count(atMost: 5_000_000) == 4)
    }

    /// Two histograms are equal when their bounds and every bucket are:
    /// the same sum and count from other buckets differ.
    @Test func durationHistogramsAreEqualBucketByBucket() {
        func histogram(_ observations: [UInt64], bounds: [UInt64] = DurationHistogram.syncBounds) -> DurationHistogram {
            var histogram = DurationHistogram(bounds: bounds)
            for nanoseconds in observations { histogram.observe(nanoseconds: nanoseconds) }
            return histogram
        }
        #expect(histogram([1, 20_000_000_000]) == histogram([1, 20_000_000_000]))
        #expect(histogram([1, 20_000_000_000]).count(atMost: 10_000_000_000) == 1, "the bucket above every bound")
        #expect(histogram([150_000, 150_000]) != histogram([50_000, 250_000]))
        #expect(histogram([]) != histogram([], bounds: DurationHistogram.latencyBounds))
    }

    @Test func theLatencyBucketsAreWrittenAsPrometheusReadsThem() {
        let labels = DurationHistogram(bounds: DurationHistogram.latencyBounds).samples().compactMap {
            $0.labels.first { $0.name == "le" }?.value
        }
        #expect(
            labels == [
                "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                "0.5", "1", "+Inf",
            ])
    }

    @Test func verbAndCodeOrdinalsAreTheirPlacesInAllCases() {
        for (index, verb) in Verb.allCases.enumerated() { #expect(verb.ordinal == index, "\(verb)") }
        for (index, code) in ErrorCode.allCases.enumerated() { #expect(code.ordinal == index, "\(code)") }
    }

    @Test func requestCountsShowEveryVerbAnsweredOKAndOnlyErrorsThatHappened() {
        var counts = RequestCounts()
        counts.note(.ping, nil)
        counts.note(.ping, nil)
        counts.note(.start, .badArgument)
        counts.note(nil, .unknownCommand)
        counts.note(nil, .lineTooLong)
        let samples = counts.samples().map { sample in
            "\(sample.labels.map { "\($0.name)=\($0.value)" }.joined(separator: ",")) \(Int(sample.value))"
        }
        #expect(samples.count == Verb.allCases.count + 3)
        #expect(samples.contains("verb=ping,result=ok 2"))
        #expect(samples.contains("verb=start,result=ok 0"))
        #expect(samples.contains("verb=start,result=bad-argument 1"))
        #expect(samples.contains("verb=unknown,result=unknown-command 1"))
        #expect(samples.contains("verb=unknown,result=line-too-long 1"))
        #expect(!samples.contains { $0.hasPrefix("verb=unknown,result=ok") })
        #expect(counts.count(.ping, nil) == 2 && counts.count(.start, .badArgument) == 1)
    }

    @Test(arguments: [
        ("PING", Verb.ping), ("ping x y", .ping), ("  start a monkeys=x", .start), ("Metrics\r", .metrics),
        ("\tTAIL a", .tail),
    ])
    func aRefusedLineIsCountedUnderTheVerbItNames(line: String, verb: Verb) {
        #expect(LineFramer.Frame.line(Array(line.utf8)).verb == verb)
    }

    @Test(arguments: ["", "PONG", "\"PING\"", "PINGPINGPING", "é", "START\u{0}"])
    func aLineThatNamesNoVerbIsUnknown(line: String) {
        #expect(LineFramer.Frame.line(Array(line.utf8)).verb == nil)
        #expect(LineFramer.Frame.lineTooLong.verb == nil)
    }

    @Test(arguments: [
        (0.0, "0"), (7, "7"), (1_234_567_890, "1234567890"), (9_007_199_254_740_991, "9007199254740991"),
        (0.1, "0.1"), (-3, "-3"), (5.69e-05, "5.69e-05"), (1e300, "1e+300"), (Double.infinity, "+Inf"),
        (-Double.infinity, "-Inf"), (Double.nan, "NaN"),
    ])
    func numbersAreWrittenAsPrometheusReadsThem(value: Double, text: String) {
        var output: [UInt8] = []
        Exposition.appendNumber(value, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == text)
        #expect(Exposition.number(value) == text)
    }

    @Test func aSingleLabelSampleIsTheSameWrittenEitherWay() {
        var direct: [UInt8] = []
        Exposition.append(12, of: "m_total", label: "session", "a.b-c", to: &direct)
        var built: [UInt8] = []
        Exposition.append(MetricSample(labels: [("session", "a.b-c")], value: 12), of: "m_total", to: &built)
        #expect(direct == built)
        #expect(String(decoding: direct, as: UTF8.self) == "m_total{session=\"a.b-c\"} 12\n")
    }

    @Test func labelValuesAndHelpAreEscaped() {
        var output: [UInt8] = []
        Exposition.append(
            MetricFamily(
                "m", .gauge, help: "a \\ b\nc \"d\"", samples: [MetricSample(labels: [("l", "x\"y\\z\n")], value: 1)]),
            to: &output)
        #expect(
            String(decoding: output, as: UTF8.self)
                == "# HELP m a \\\\ b\\nc \"d\"\n# TYPE m gauge\nm{l=\"x\\\"y\\\\z\\n\"} 1\n")
    }

    /// Every family once, its samples together, whatever the byte budget:
    /// a family is never split by its header written twice.
    @Test(arguments: [1, 100, 1_000, 1 << 20])
    func sessionFamiliesAreWholeAtAnyBudget(budget: Int) throws {
        var harness = Harness()
        for name in ["b", "a", "c"] { try harness.expectOK("START \(name) target=ab interval=1h") }
        var listing = try #require(try harness.send("METRICS").metrics)
        var output: [UInt8] = []
        var rounds = 0
        while !harness.engine.fill(&listing, into: &output, byteLimit: output.count + budget) {
            rounds += 1
            #expect(rounds < 1000)
        }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        let helps = lines.filter { $0.hasPrefix("# HELP ") }
        #expect(helps.count == Engine.sessionFamilies.count)
        #expect(Set(helps).count == helps.count)
        let samples = lines.filter { !$0.hasPrefix("#") }
        #expect(samples.count == 3 * Engine.plainSessionFamilyCount)
        // In the order of the session table (creation here), not of names.
        #expect(
            samples.prefix(3).map { $0.split(separator: " ")[0] } == [
                "monkeyd_session_entries_total{session=\"b\"}", "monkeyd_session_entries_total{session=\"a\"}",
                "monkeyd_session_entries_total{session=\"c\"}",
            ])
    }

    @Test func aSessionDeletedDuringAListingIsLeftOutOfWhatRemains() throws {
        var harness = Harness()
        for name in ["a", "b", "c"] { try harness.expectOK("START \(name) interval=1h") }
        var listing = try #require(try harness.send("METRICS").metrics)
        var output: [UInt8] = []
        try writeUntil(#"session="b""#, &listing, &output, &harness)
        try harness.expectOK("DELETE b")
        try harness.expectOK("START d interval=1h")  // in b's slot, already written in this family
        while !harness.engine.fill(&listing, into: &output, byteLimit: .max) {}
        let samples = String(decoding: output, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        let families = Engine.plainSessionFamilyCount
        #expect(samples.filter { $0.contains("session=\"b\"") }.count == 1, "only where it was written")
        #expect(!samples.contains { $0.contains("session=\"d\"") }, "a session created meanwhile waits")
        #expect(samples.filter { $0.contains("session=\"a\"") }.count == families)
        #expect(samples.count == 2 * families + 1)
    }

    /// A session deleted and created again under its name lands in another
    /// free slot, perhaps one not reached yet: it is still written once.
    @Test func aSessionCreatedAgainDuringAListingIsNeverWrittenTwice() throws {
        var harness = Harness()
        for name in ["a", "b", "c", "d"] { try harness.expectOK("START \(name) interval=1h") }
        var listing = try #require(try harness.send("METRICS").metrics)
        var output: [UInt8] = []
        try writeUntil(#"session="b""#, &listing, &output, &harness)
        try harness.expectOK("DELETE b")
        try harness.expectOK("DELETE d")
        try harness.expectOK("START b interval=1h")  // in d's slot, not reached yet
        while !harness.engine.fill(&listing, into: &output, byteLimit: .max) {}
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.components(separatedBy: #"monkeyd_session_entries_total{session="b"}"#).count == 2)
        #expect(!text.contains(#"session="d""#))
        // The next response has it everywhere.
        var next = try #require(try harness.send("METRICS").metrics)
        var again: [UInt8] = []
        while !harness.engine.fill(&next, into: &again, byteLimit: .max) {}
        let samples = String(decoding: again, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.filter { $0.contains(#"session="b""#) }.count == Engine.plainSessionFamilyCount)
    }

    /// The sessions' samples of a whole METRICS response, by series.
    private func sessionSamples(_ harness: inout Harness) throws -> [String: Double] {
        var listing = try #require(try harness.send("METRICS").metrics)
        var output: [UInt8] = []
        while !harness.engine.fill(&listing, into: &output, byteLimit: .max) {}
        var samples: [String: Double] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            samples[String(parts[0])] = Double(parts[1])
        }
        return samples
    }

    /// The counters of a restored session go on from what STATUS says it
    /// typed (so a restart does not look like a reset), never down after a
    /// CLEAR; characters are counted from the daemon's start.
    @Test func sessionCountersGoOnFromARestoreAndNeverGoDown() throws {
        var harness = Harness()
        let settings = SessionSettings(
            monkeys: 2, interval: Interval(nanoseconds: ms(50)), alphabet: try alphabet("q"),
            target: TargetMatcher(target: "q"))
        let snapshot = SessionSnapshot(
            name: try sessionName("r"), settings: settings, isTyping: true, nextID: 8, nextNumber: 3, typed: 2, hits: 2,
            bestLength: 1)
        _ = harness.engine.restore(Session(restoring: snapshot, entries: [], retention: 100), now: ms(1_000))
        let series = { (family: String) in "monkeyd_session_\(family){session=\"r\"}" }
        var samples = try sessionSamples(&harness)
        #expect(samples[series("entries_total")] == 2 && samples[series("hits_total")] == 2)
        #expect(samples[series("characters_total")] == 0)
        _ = harness.tick(now: ms(1_050))
        try harness.expectOK("CLEAR r", now: ms(1_060))
        samples = try sessionSamples(&harness)
        #expect(samples[series("entries_total")] == 3 && samples[series("hits_total")] == 3)
        #expect(samples[series("characters_total")] == 2)
        #expect(samples[series("best_length")] == 0, "a gauge: CLEAR resets best progress")
        _ = harness.tick(now: ms(1_100))
        #expect(try sessionSamples(&harness)[series("entries_total")] == 4)
    }

    /// Fills `listing` a byte at a time until `output` holds `text`.
    private func writeUntil(
        _ text: String, _ listing: inout MetricsListing, _ output: inout [UInt8], _ harness: inout Harness
    ) throws {
        while !String(decoding: output, as: UTF8.self).contains(text) {
            #expect(!harness.engine.fill(&listing, into: &output, byteLimit: output.count + 1))
        }
    }

    @Test func ticksAreTimedAgainstTheirDueTime() throws {
        var harness = Harness()
        try harness.expectOK("START a interval=100ms", now: 0)
        // The first tick is due at 100 ms (on the grid): run 3 ms late, then 30 ms late.
        _ = harness.tick(now: ms(103))
        #expect(harness.engine.tickLateness.count == 1)
        #expect(harness.engine.tickLateness.sumNanoseconds == ms(3))
        _ = harness.tick(now: ms(230))
        #expect(harness.engine.tickLateness.count == 2)
        #expect(harness.engine.tickLateness.count(atMost: 5_000_000) == 1)
        #expect(harness.engine.ticksSkipped == 0, "30 ms late is made up")
    }

    /// A tick run past the catch-up window skips the ticks its session
    /// missed (its phase kept), and they are counted; the ticks after are not.
    @Test func ticksMissedPastTheCatchUpWindowAreCountedAsSkipped() throws {
        var harness = Harness()
        try harness.expectOK("START a interval=100ms", now: 0)
        try harness.expectOK("START b interval=100ms", now: 0)
        _ = harness.tick(now: ms(100))
        // Due at 200, run at 420: those due at 300 and 400 are skipped, for each session.
        _ = harness.tick(now: ms(420))
        #expect(harness.engine.ticksSkipped == 4)
        _ = harness.tick(now: ms(500))
        _ = harness.tick(now: ms(615))
        #expect(harness.engine.ticksSkipped == 4, "on time, and 15 ms late: nothing skipped")
        #expect(harness.engine.session(named: try #require(SessionName("a")))?.typed == 4, "at 100, 420, 500, 615")
    }
}
