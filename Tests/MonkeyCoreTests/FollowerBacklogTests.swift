import Testing

@testable import MonkeyCore

/// The slow-follower rule, edge by edge: lines are written while they fit
/// under the limit, skipped and counted past it, and reported in one
/// `lost` record once the follower has read half of what waited.
struct FollowerBacklogTests {
    @Test func linesAreWrittenUpToTheLimitExactly() {
        var backlog = FollowerBacklog(limit: 100)
        #expect(backlog.deliver(length: 10, pending: 90) == .init(reportsLost: nil, writesLine: true))
        #expect(backlog.deliver(length: 10, pending: 91) == .init(reportsLost: nil, writesLine: false))
        #expect(backlog.lostCount == 1 && backlog.isSkipping)
    }

    @Test func skippedLinesAreCountedUntilHalfIsRead() {
        var backlog = FollowerBacklog(limit: 100)
        _ = backlog.deliver(length: 20, pending: 90)
        #expect(backlog.deliver(length: 1, pending: 51) == .init(reportsLost: nil, writesLine: false))
        #expect(backlog.deliver(length: 1, pending: 80) == .init(reportsLost: nil, writesLine: false))
        #expect(backlog.lostCount == 3)
        // Half the limit waiting: caught up. The count comes first, then the line.
        #expect(backlog.deliver(length: 1, pending: 50) == .init(reportsLost: 3, writesLine: true))
        #expect(!backlog.isSkipping && backlog.lostCount == 0)
        #expect(backlog.deliver(length: 1, pending: 51) == .init(reportsLost: nil, writesLine: true))
    }

    /// A line too large even for a follower that caught up: the report
    /// still goes out, and the line starts a new count.
    @Test func aLineThatDoesNotFitAfterCatchingUpStartsANewCount() {
        var backlog = FollowerBacklog(limit: 100)
        _ = backlog.deliver(length: 200, pending: 0)
        #expect(backlog.deliver(length: 60, pending: 50) == .init(reportsLost: 1, writesLine: false))
        #expect(backlog.lostCount == 1)
        #expect(backlog.finish() == 1)
    }

    /// A follower that never reads costs nothing more than its limit: every
    /// line is counted, none is kept, and the end reports them all.
    @Test func aFollowerThatNeverReadsLosesEverythingPastTheLimit() {
        var backlog = FollowerBacklog(limit: 1_000)
        var pending = 0
        for _ in 0..<10_000 {
            let delivery = backlog.deliver(length: 30, pending: pending)
            #expect(delivery.reportsLost == nil)
            if delivery.writesLine { pending += 30 }
        }
        #expect(pending <= 1_000)
        let lost = backlog.lostCount
        #expect(lost == UInt64(10_000 - pending / 30))
        #expect(backlog.finish() == lost)
    }

    @Test func theEndReportsOnlyWhatWasSkippedSinceTheLastReport() {
        var backlog = FollowerBacklog(limit: 100)
        #expect(backlog.finish() == nil)
        _ = backlog.deliver(length: 101, pending: 0)
        _ = backlog.deliver(length: 1, pending: 0)
        #expect(backlog.finish() == nil, "reported with the line that caught up")
        _ = backlog.deliver(length: 101, pending: 0)
        #expect(backlog.finish() == 1)
        #expect(backlog.finish() == nil, "finishing twice reports once")
    }

    @Test func theLostRecordSaysHowMany() {
        #expect(ResponseEncoder.encode(FollowerBacklog.lostRecord(7)) == "lost count=7")
    }
}
