/// What a session's state file holds: its snapshot, plus how far ids and
/// numbers are reserved (they may have been handed out up to there).
public struct StoredSession: Sendable, Equatable {
    public var snapshot: SessionSnapshot
    /// Every id below this may have been given to an entry.
    public var reservedID: UInt64
    /// Every number below this (in the current clear-epoch) may have been given.
    public var reservedNumber: UInt64

    public init(snapshot: SessionSnapshot, reservedID: UInt64, reservedNumber: UInt64) {
        self.snapshot = snapshot
        self.reservedID = reservedID
        self.reservedNumber = reservedNumber
    }

    /// A snapshot with ids and numbers reserved `ahead` past it, keeping a
    /// reservation already far enough ahead. Ids and numbers advance
    /// together, so one distance serves both.
    public static func reserving(_ snapshot: SessionSnapshot, ahead: UInt64, current: UInt64) -> StoredSession {
        let reservedID = current >= snapshot.nextID + ahead / 2 ? current : snapshot.nextID + ahead
        return StoredSession(
            snapshot: snapshot, reservedID: reservedID,
            reservedNumber: snapshot.nextNumber + (reservedID - snapshot.nextID))
    }

    /// A snapshot that reserves nothing beyond itself: for a clean shutdown,
    /// when every entry handed out is on disk.
    public static func exact(_ snapshot: SessionSnapshot) -> StoredSession {
        StoredSession(snapshot: snapshot, reservedID: snapshot.nextID, reservedNumber: snapshot.nextNumber)
    }

    /// How many ids to reserve at a time: about a minute of typing (and at
    /// least four sync intervals), so that renewing reservations costs few
    /// state-file writes even with thousands of sessions typing; a crash
    /// skips at most that many ids. A flat-out session's grows with its
    /// typing (`DurabilityPolicy.typed`).
    public static func reservationSize(interval: Interval, syncInterval: Interval) -> UInt64 {
        let step = max(interval.nanoseconds, 1)
        let perSync = syncInterval.nanoseconds / step
        let perMinute = 60_000_000_000 / step
        return min(max(4 * perSync, perMinute, 64), 1 << 20)
    }
}

/// Putting a session back together after a restart or a crash.
extension StoredSession {
    /// The session as it was: the snapshot's counters plus the entries typed
    /// after the snapshot was written, and ids and numbers continuing past
    /// everything reserved, so that a gap marks lost typing.
    public func restoredSession(entries: [Entry], retention: Int) -> Session {
        var snapshot = snapshot
        let target = snapshot.settings.target
        for entry in entries where entry.id >= snapshot.nextID {
            snapshot.typed += 1
            if entry.isHit {
                snapshot.hits += 1
                snapshot.bestLength = target.length
            } else if !target.isEmpty && snapshot.bestLength < target.length {
                snapshot.bestLength = target.longestPrefix(in: entry.text, longerThan: snapshot.bestLength)
            }
        }
        var session = Session(restoring: snapshot, entries: entries, retention: retention)
        session.skip(toID: reservedID, number: reservedNumber)
        return session
    }
}
