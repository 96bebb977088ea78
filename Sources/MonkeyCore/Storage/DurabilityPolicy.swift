/// What the store writes and when, decided without touching a file: the
/// control records that make a change durable, the reservations of ids
/// ahead of typing, when a session's entries file is compacted, and when
/// the control log is compacted into a snapshot. The daemon carries out
/// what it says (`FileStore`); the storage thread only executes.
///
/// - **Changes** are whole session states (`ControlRecord.session`),
///   appended to the control log together at the end of a pass of the event
///   loop and synced once (group commit); of a session changed several
///   times in one pass, only the last state.
/// - **Reservations.** An id may be given to an entry only below the
///   reservation on disk, so that a crash never gives it again: a change
///   reserves `reservationSize` ids ahead (about a minute of typing); once a
///   session has used half, a renewal is asked for and written with the next
///   commit or sync; an entry that would reach the reservation first waits
///   for one written at once. That happens when renewals fail, and when a
///   flat-out session types a reservation's half between two syncs: each
///   write at once doubles its reservations (`largestReservation` at most),
///   so that a few of them make its renewals wait for syncs again.
/// - **Compaction of an entries file** when it holds twice the session's
///   retention: the retained log replaces it.
/// - **Compaction of the control log** when its segment has grown past
///   `segmentLimit` and twice the last snapshot: a snapshot of every session
///   is written and the segments it holds are removed.
public struct DurabilityPolicy: Sendable {
    /// What the policy keeps of one session.
    public struct Book: Sendable, Equatable {
        public var epoch: UInt64
        /// Ids (and numbers) below these may have been handed out; on disk.
        public var reservedID: UInt64
        public var reservedNumber: UInt64
        /// How many ids a reservation covers, for the session's interval.
        public var reservationSize: UInt64
        /// A renewal to write with the next commit or sync.
        public var wantedReservation: Reservation?
        /// Writing a reservation at once failed: retried at each sync, not at each tick.
        public var isReservationFailing = false
        /// Records in the entries file once what was handed over is written,
        /// counting entries up to `countedThroughID`: what decides compaction.
        public var recordsInFile: Int
        public var countedThroughID: UInt64
    }

    public private(set) var books: [SessionName: Book] = [:]
    /// The sessions whose book holds a wanted reservation: found without a
    /// pass over every book at each commit.
    private var wanting = Set<SessionName>()
    public private(set) var syncInterval: Interval
    /// The control log segment changes are appended to, and its size.
    public private(set) var segment: UInt64
    public private(set) var segmentBytes: Int
    /// The size of the last snapshot (0: none yet).
    public private(set) var snapshotBytes = 0
    /// A snapshot is being written; no other starts meanwhile.
    public private(set) var isSnapshotting = false
    /// Event ids below this are reserved on disk; a renewal asked for.
    public private(set) var eventsReservedID: UInt64 = 1
    public private(set) var wantedEventReservation: UInt64?
    /// How many event ids a reservation covers.
    public static let eventReservationSize: UInt64 = 4096
    /// The most ids a session's reservation grows to (`typed`): about three
    /// hours of a flat-out session of one monkey at 100 M entries a second;
    /// ids are 64 bits.
    public static let largestReservation: UInt64 = 1 << 40
    /// A segment is compacted once past this many bytes and twice the last snapshot.
    public var segmentLimit = 8 << 20

    public init(syncInterval: Interval, segment: UInt64, segmentBytes: Int) {
        self.syncInterval = syncInterval
        self.segment = segment
        self.segmentBytes = segmentBytes
    }

    // MARK: Sessions as they are on disk

    /// A session restored from disk, with `recordsInFile` records in its
    /// entries file of its epoch.
    public mutating func restore(_ stored: StoredSession, recordsInFile: Int) {
        let snapshot = stored.snapshot
        books[snapshot.name] = Book(
            epoch: snapshot.epoch, reservedID: stored.reservedID, reservedNumber: stored.reservedNumber,
            reservationSize: reservationSize(snapshot.settings.interval), recordsInFile: recordsInFile,
            countedThroughID: snapshot.nextID - 1)
    }

    /// How many ids to reserve at a time for a session of `interval`.
    public func reservationSize(_ interval: Interval) -> UInt64 {
        StoredSession.reservationSize(interval: interval, syncInterval: syncInterval)
    }

    /// A reload changed `sync_interval`, on which reservation sizes depend.
    public mutating func changeSyncInterval(to syncInterval: Interval, intervals: [SessionName: Interval]) {
        self.syncInterval = syncInterval
        for (name, interval) in intervals {
            let size = reservationSize(interval)
            books[name]?.reservationSize = size
        }
    }

    // MARK: Changes

    /// The record that saves a session's state, reserving ids ahead: within
    /// an epoch, or across a CLEAR (ids continue), a reservation already far
    /// enough ahead is kept.
    public func record(saving snapshot: SessionSnapshot) -> ControlRecord {
        let current = books[snapshot.name]?.reservedID ?? 0
        return .session(
            StoredSession.reserving(snapshot, ahead: reservationSize(snapshot.settings.interval), current: current))
    }

    /// The records that make a group of changes durable, given `state`, each
    /// session's state once the whole group is applied: one for the last
    /// change of each session, in the order of those last changes. A
    /// session record holds the whole session and replay keeps the last, so
    /// the earlier ones of a group (whose `OK`s wait for the same sync)
    /// would only be overwritten. An epoch that only a dropped record held
    /// is kept by an `epochs` record, so that no later session gets it again.
    public func records(for effects: [Effect], state: (SessionName) -> SessionSnapshot?) -> [ControlRecord] {
        guard effects.count > 1 else { return effects.map { record(for: $0, state: state) } }
        var seen = Set<SessionName>()
        var records: [ControlRecord] = []
        var keptEpoch: UInt64 = 0
        var droppedEpoch: UInt64 = 0
        var previous: SessionName?
        for index in effects.indices.reversed() {
            let epoch = effects[index].epoch ?? 0
            let session = effects[index].session
            // A run of changes of one session (pipelined) needs no hashing.
            let isLast = session != previous && seen.insert(session).inserted
            previous = session
            if isLast {
                records.append(record(for: effects[index], state: state))
                keptEpoch = max(keptEpoch, epoch)
            } else {
                droppedEpoch = max(droppedEpoch, epoch)
            }
        }
        records.reverse()
        if droppedEpoch > keptEpoch { records.append(.epochs(next: droppedEpoch + 1)) }
        return records
    }

    /// The record of the last change of a session in its group. A saved
    /// session always has a state, in the change's epoch: no tick runs
    /// between a change and its commit. Were it otherwise, stopping is
    /// better than an `OK` for a change that was not written.
    private func record(for effect: Effect, state: (SessionName) -> SessionSnapshot?) -> ControlRecord {
        switch effect {
        case .save(let name, let epoch), .clear(let name, let epoch):
            guard let snapshot = state(name), snapshot.epoch == epoch else {
                preconditionFailure("no state of session \(name) in epoch \(epoch) for its change")
            }
            return record(saving: snapshot)
        case .delete(let name):
            return .deleted(name)
        }
    }

    /// The records, `bytes` long in all, are durable in the current segment.
    public mutating func committed(_ records: [ControlRecord], bytes: Int) {
        segmentBytes += bytes
        for record in records { apply(record) }
    }

    private mutating func apply(_ record: ControlRecord) {
        switch record {
        case .session(let stored):
            let snapshot = stored.snapshot
            let name = snapshot.name
            var book =
                books[name]
                ?? Book(
                    epoch: snapshot.epoch, reservedID: 0, reservedNumber: 0, reservationSize: 0, recordsInFile: 0,
                    countedThroughID: snapshot.nextID - 1)
            if book.epoch != snapshot.epoch {
                // A CLEAR (or a new session of an old name): its entries file starts empty.
                book.recordsInFile = 0
                book.countedThroughID = snapshot.nextID - 1
                book.wantedReservation = nil
            }
            book.epoch = snapshot.epoch
            book.reservedID = stored.reservedID
            book.reservedNumber = stored.reservedNumber
            // A flat-out session keeps the size its typing grew to.
            let size = reservationSize(snapshot.settings.interval)
            book.reservationSize = snapshot.settings.interval.nanoseconds == 0 ? max(size, book.reservationSize) : size
            book.isReservationFailing = false
            if let wanted = book.wantedReservation, wanted.reservedID <= book.reservedID {
                book.wantedReservation = nil
            }
            store(book, for: name)
        case .deleted(let name):
            store(nil, for: name)
        case .reservation(let reservation):
            guard var book = books[reservation.name], book.epoch == reservation.epoch else { return }
            book.reservedID = max(book.reservedID, reservation.reservedID)
            book.reservedNumber = max(book.reservedNumber, reservation.reservedNumber)
            book.isReservationFailing = false
            if let wanted = book.wantedReservation, wanted.reservedID <= book.reservedID {
                book.wantedReservation = nil
            }
            store(book, for: reservation.name)
        case .eventIDs(let reserved):
            eventsReservedID = max(eventsReservedID, reserved)
            if let wanted = wantedEventReservation, wanted <= eventsReservedID { wantedEventReservation = nil }
        case .epochs, .end:
            break
        }
    }

    // MARK: Typed entries

    /// What the store does with an entry it sees with its session's bookkeeping.
    public struct EntryPlan: Sendable, Equatable {
        /// The retained log (this entry included) replaces the entries file,
        /// instead of the entry being appended.
        public var compactsEntriesFile: Bool
        /// A reservation to write at once, before the entry is handed out.
        public var reservesNow: Reservation?
        /// Which entries the store must see next with the bookkeeping; the
        /// ones before are recorded in bulk.
        public var attention: Attention
    }

    /// Which of a session's entries the store must next see with the
    /// session's bookkeeping (`typed`).
    public struct Attention: Sendable, Equatable {
        /// The first for which any check of `typed` could come out otherwise.
        public var nextID: UInt64
        /// The first for which the reservation check could: a flat-out
        /// session hands its retained entries over at each sync, and only
        /// a reservation cannot wait for one (a compaction can, and one
        /// forced at every batch wrote each batch's kept entries twice).
        public var nextReservationID: UInt64

        public init(nextID: UInt64, nextReservationID: UInt64) {
            self.nextID = nextID
            self.nextReservationID = nextReservationID
        }

        /// Every check at `id`.
        public init(from id: UInt64) {
            self.init(nextID: id, nextReservationID: id)
        }
    }

    /// An entry just typed by `session`, seen with its bookkeeping;
    /// `compacting`: the retained log replaces the entries file whatever
    /// it holds.
    public mutating func typed(_ entry: Entry, of session: Session, compacting: Bool = false) -> EntryPlan {
        guard var book = books[session.name], book.epoch == session.epoch else {
            return EntryPlan(compactsEntriesFile: false, reservesNow: nil, attention: Attention(from: entry.id + 1))
        }
        // The entries since the last one this book saw were recorded in bulk.
        book.recordsInFile += Int(truncatingIfNeeded: entry.id - 1 - min(book.countedThroughID, entry.id - 1))
        book.countedThroughID = entry.id
        let capacity = session.log.capacity
        let compacts = compacting || book.recordsInFile >= 2 * capacity
        book.recordsInFile = compacts ? session.log.count : book.recordsInFile + 1
        var reservesNow: Reservation?
        func renewal() -> Reservation {
            Reservation(
                name: session.name, epoch: session.epoch, reservedID: entry.id + 1 + book.reservationSize,
                reservedNumber: entry.number + 1 + book.reservationSize)
        }
        if entry.id >= book.reservedID && !book.isReservationFailing {
            // About to hand out an id that a crash could give again. Flat
            // out, the session typed half a reservation before a commit or
            // sync wrote the renewal: a reservation is less than that time
            // of its typing, and each write at once holds it for a sync.
            if session.settings.interval.nanoseconds == 0 {
                book.reservationSize = min(book.reservationSize * 2, Self.largestReservation)
            }
            reservesNow = renewal()
        } else if book.wantedReservation == nil && entry.id + book.reservationSize / 2 >= book.reservedID {
            book.wantedReservation = renewal()
        }
        store(book, for: session.name)
        return EntryPlan(
            compactsEntriesFile: compacts, reservesNow: reservesNow,
            attention: nextAttention(after: entry, capacity: capacity, book: book))
    }

    /// The id of the first entry after `entry` for which one of the checks
    /// of `typed` could come out otherwise. A reservation granted later only
    /// moves that id later, so the answer stays safe until the session
    /// changes (when the engine shows the store its next entry again).
    private func nextAttention(after entry: Entry, capacity: Int, book: Book) -> Attention {
        guard !book.isReservationFailing else { return Attention(from: entry.id + 1) }
        let compaction = entry.id + 1 + UInt64(max(0, 2 * capacity - book.recordsInFile))
        let reservation =
            book.wantedReservation == nil
            ? book.reservedID - min(book.reservedID, book.reservationSize / 2) : book.reservedID
        return Attention(
            nextID: max(entry.id + 1, min(compaction, reservation)), nextReservationID: max(entry.id + 1, reservation))
    }

    /// Writing a reservation at once failed: the session types on, and the
    /// renewal is retried with the next commit or sync.
    public mutating func reservationFailed(_ reservation: Reservation) {
        guard var book = books[reservation.name], book.epoch == reservation.epoch else { return }
        book.isReservationFailing = true
        book.wantedReservation = reservation
        store(book, for: reservation.name)
    }

    /// The renewals asked for, as records to append with the next commit or
    /// sync; they stay asked for until committed.
    public var wantedReservations: [ControlRecord] {
        let sessions = wanting.compactMap { books[$0]?.wantedReservation.map { ControlRecord.reservation($0) } }
        return sessions + (wantedEventReservation.map { [.eventIDs(reservedThrough: $0)] } ?? [])
    }

    /// An event is about to get `id`: a reservation to write at once when
    /// it is not reserved on disk yet (rare); a renewal is asked for at half.
    public mutating func eventIDUsed(_ id: UInt64) -> ControlRecord? {
        let renewal = id + 1 + Self.eventReservationSize
        if id >= eventsReservedID { return .eventIDs(reservedThrough: renewal) }
        if wantedEventReservation == nil && id + Self.eventReservationSize / 2 >= eventsReservedID {
            wantedEventReservation = renewal
        }
        return nil
    }

    /// Event ids were reserved on disk before start-up.
    public mutating func restoreEventReservation(_ reserved: UInt64) {
        eventsReservedID = max(eventsReservedID, reserved)
    }

    private mutating func store(_ book: Book?, for name: SessionName) {
        books[name] = book
        if book?.wantedReservation != nil {
            wanting.insert(name)
        } else {
            wanting.remove(name)
        }
    }

    // MARK: Compacting the control log

    /// Whether the control log should be compacted into a snapshot now.
    public var wantsSnapshot: Bool {
        !isSnapshotting && segmentBytes > max(segmentLimit, 2 * snapshotBytes)
    }

    /// Changes now go to `segment`; the segments before it are being
    /// written into a snapshot.
    public mutating func beganSnapshot(nextSegment: UInt64, segmentBytes: Int) {
        isSnapshotting = true
        segment = nextSegment
        self.segmentBytes = segmentBytes
    }

    /// The snapshot is written (`bytes` long), or failed (nil: the segments
    /// stay and a later compaction tries again).
    public mutating func finishedSnapshot(bytes: Int?) {
        isSnapshotting = false
        if let bytes { snapshotBytes = bytes }
    }
}
