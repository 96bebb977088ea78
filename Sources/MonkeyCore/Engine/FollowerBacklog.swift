/// The bound on what a follower may leave unread, and what happens when it
/// is reached: a follower that does not read never blocks the daemon or
/// makes it hold unbounded memory. Past `limit` bytes waiting, new lines
/// are skipped and counted; once the follower has read half of what
/// waited, the next line is preceded by one `lost count=N` record and
/// delivery resumes. Lines still skipped when the stream ends are reported
/// then (`finish`).
public struct FollowerBacklog: Sendable, Equatable {
    /// Bytes a follower may have waiting unread.
    public let limit: Int
    /// Lines skipped since the follower last caught up; 0 while nothing is skipped.
    public private(set) var lostCount: UInt64 = 0

    public init(limit: Int) {
        self.limit = limit
    }

    /// Whether new lines are being skipped.
    public var isSkipping: Bool { lostCount > 0 }

    /// What to do with one new line.
    public struct Delivery: Sendable, Equatable {
        /// A `lost count=N` record to write first: the follower caught up.
        public var reportsLost: UInt64?
        /// Whether the line itself is written; false: it is skipped and counted.
        public var writesLine: Bool
    }

    /// Decides for a new line of `length` bytes when `pending` bytes wait unread.
    public mutating func deliver(length: Int, pending: Int) -> Delivery {
        var reportsLost: UInt64?
        if isSkipping {
            guard pending <= limit / 2 else {
                lostCount += 1
                return Delivery(reportsLost: nil, writesLine: false)
            }
            reportsLost = lostCount
            lostCount = 0
        }
        guard pending + length <= limit else {
            lostCount += 1
            return Delivery(reportsLost: reportsLost, writesLine: false)
        }
        return Delivery(reportsLost: reportsLost, writesLine: true)
    }

    /// The stream ends: the count of lines skipped since the last report,
    /// if any, for one last `lost` record.
    public mutating func finish() -> UInt64? {
        defer { lostCount = 0 }
        return isSkipping ? lostCount : nil
    }

    /// The `lost count=N` record.
    public static func lostRecord(_ count: UInt64) -> Record {
        Record(type: "lost", fields: [("count", String(count))])
    }
}
