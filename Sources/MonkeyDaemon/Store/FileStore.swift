import Dispatch
import MonkeyCore
import MonkeyShell

/// The durable store, on the daemon's queue: carries out what the
/// `DurabilityPolicy` decides. Changes are appended to the control log by
/// this queue itself, a group of them with one write and one sync
/// (`commit`); typed entries are encoded into the `Outbox` as they are typed
/// and handed to the `FileWriter`'s own queue at each sync, at least every
/// `sync_interval`, so that the disk's latency never reaches a tick; the
/// control log is compacted into a snapshot on that queue too.
final class FileStore: @unchecked Sendable {
    let writer: FileWriter
    let controlLog: ControlLog
    var policy: DurabilityPolicy
    let report: (LogPriority, String) -> Void
    var outbox = Outbox()
    /// The last sync's entries, once written: the next outbox fills the
    /// same memory rather than new pages.
    var spareEntries = JournalBatch()
    /// A sync is with the writer; the next waits for it.
    var isSyncing = false
    /// The writer holds records that failed and wait to be written again.
    var writerHasUnwritten = false
    /// What is wrong with the disk, while something is; reported once.
    var problem: String?
    /// For metrics.
    var counters = Counters()

    struct Counters {
        /// Appends (with their sync) of the control log, and the records they held.
        var commits: UInt64 = 0
        var records: UInt64 = 0
        /// Appends of the control log that failed (changes and reservations).
        var failedCommits: UInt64 = 0
        /// Syncs of typed entries (the storage thread's) that failed.
        var failedEntrySyncs: UInt64 = 0
        /// Compactions of the control log that failed (its new segment or the snapshot).
        var failedSnapshots: UInt64 = 0
        /// How long each good append of the control log took (write and
        /// `fdatasync`), and each good sync of typed entries on the storage
        /// thread (the journal's write and `fdatasync`, with a fold when one
        /// is due).
        var controlSyncs = DurationHistogram(bounds: DurationHistogram.syncBounds)
        var entrySyncs = DurationHistogram(bounds: DurationHistogram.syncBounds)
    }

    /// Opens the store in `directory`, loading every session.
    init(
        directory: String, syncInterval: Interval, journalLimit: Int, controlLogLimit: Int = 8 << 20, retention: Int,
        report: @escaping (LogPriority, String) -> Void
    ) throws(StorageError) {
        let writer = FileWriter(directory: directory, journalLimit: journalLimit)
        let loaded = try writer.load(retention: retention, report: report)
        // Loading read the journal whole and decoded it: its pages go back.
        Syscalls.returnFreedMemory()
        self.writer = writer
        self.report = report
        // Room ahead of the records: 64 KiB (hundreds of groups), less for
        // a small segment, so that it holds few more zeros than records.
        self.controlLog = ControlLog(
            directory: directory, segment: loaded.segment, length: loaded.segmentLength,
            room: min(64 << 10, max(4096, controlLogLimit / 8)))
        self.policy = DurabilityPolicy(
            syncInterval: syncInterval, segment: loaded.segment, segmentBytes: loaded.segmentLength)
        policy.finishedSnapshot(bytes: loaded.snapshotBytes)
        policy.segmentLimit = controlLogLimit
        for (_, stored, recordCount) in loaded.sessions { policy.restore(stored, recordsInFile: recordCount) }
        self.loadedSessions = loaded.sessions.map(\.session)
        self.loadedNextEpoch = loaded.nextEpoch
        self.loadedEvents = loaded.events
        self.loadedEventsReservedID = loaded.eventsReservedID
        self.eventsInFile = loaded.events.count
        self.handedEventID = loaded.events.last?.id ?? 0
        policy.restoreEventReservation(loaded.eventsReservedID)
        self.writerEpochs = Dictionary(
            loaded.sessions.map { ($0.session.name, $0.session.epoch) }, uniquingKeysWith: { $1 })
        // Sessions that type again need ids reserved before their first
        // tick: all of them in one commit.
        let typing = Dictionary(
            loaded.sessions.map(\.session).filter(\.isTyping).map { ($0.name, $0.snapshot) },
            uniquingKeysWith: { $1 })
        do {
            try commit(typing.values.map { .save($0.name, epoch: $0.epoch) }) { typing[$0] }
        } catch {
            // Their first ticks reserve one by one, as they would have anyway.
            _ = noteFailure(error.message)
        }
    }

    /// The sessions loaded at start-up, and the epoch the next gets.
    let loadedSessions: [Session]
    let loadedNextEpoch: UInt64
    /// The events the events file held at start-up, and the first event id
    /// no event before the start may have had.
    let loadedEvents: [EventRecord]
    let loadedEventsReservedID: UInt64
    /// Events in the events file once what was handed over is written.
    private var eventsInFile: Int
    /// The newest event handed to the writer: the event log's newer ones
    /// go at the next sync (see `takeOutbox`).
    private var handedEventID: UInt64
    /// The epoch the writer was last told of, by session.
    private var writerEpochs: [SessionName: UInt64]

    var syncInterval: Interval { policy.syncInterval }
    func hasPendingWrites(events: EventLog) -> Bool {
        !outbox.isEmpty || hasNewEvents(events) || writerHasUnwritten || !policy.wantedReservations.isEmpty
    }

    private func hasNewEvents(_ log: EventLog) -> Bool {
        (log.newest?.id ?? 0) > handedEventID
    }
    /// So much is buffered that it should be written now.
    var wantsEarlySync: Bool { outbox.isLarge }

    // MARK: Changes, durable when `commit` returns

    /// Makes the changes durable together, with the reservations asked
    /// for: one write and one sync of the control log.
    func commit(_ effects: [Effect], state: (SessionName) -> SessionSnapshot?) throws(StorageError) {
        let records = policy.records(for: effects, state: state)
        try append(records + policy.wantedReservations)
        // The writer learns which entries are each session's now: the
        // outbox keeps only the newest epoch of a session, which is that
        // of its last change, the one its record holds.
        for record in records {
            switch record {
            case .session(let stored):
                let snapshot = stored.snapshot
                guard writerEpochs[snapshot.name] != snapshot.epoch else { continue }
                writerEpochs[snapshot.name] = snapshot.epoch
                outbox.changeEpoch(of: snapshot.name, to: snapshot.epoch)
            case .deleted(let name):
                writerEpochs[name] = nil
                outbox.changeEpoch(of: name, to: nil)
            case .reservation, .epochs, .eventIDs, .end:
                continue
            }
        }
    }

    private func append(_ records: [ControlRecord]) throws(StorageError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        for record in records { ControlFile.append(record, to: &bytes) }
        let started = Syscalls.monotonicNanoseconds()
        do {
            try controlLog.append(bytes)
        } catch {
            counters.failedCommits &+= 1
            throw noteFailure(error.message)
        }
        counters.controlSyncs.observe(nanoseconds: Syscalls.monotonicNanoseconds() &- started)
        counters.commits &+= 1
        counters.records &+= UInt64(records.count)
        policy.committed(records, bytes: bytes.count)
        noteSuccess()
    }

    // MARK: Typed entries

    /// Records an entry typed before the id the store last asked to see
    /// with its session (see `append`): most entries, which then reach the
    /// journal and not each session's own bookkeeping.
    func record(_ typed: TypedEntry) {
        outbox.append(typed.entry, session: typed.session, epoch: typed.epoch)
    }

    /// Lends `body` the journal records that `record` appends to, for the
    /// ticks to encode their quiet entries into as they type them
    /// (`Engine.runDueTicks(now:into:journal:afterFollowed:)`).
    func withTypedJournal<Result>(_ body: (inout JournalBatch) -> Result) -> Result {
        body(&outbox.entries)
    }

    /// Records an entry just typed by `session` with the session's
    /// bookkeeping (see `DurabilityPolicy.typed`): compacting its entries
    /// file, reserving ids. Returns which entries it must see so next.
    func append(_ typed: TypedEntry, of session: Session) -> DurabilityPolicy.Attention {
        let plan = policy.typed(typed.entry, of: session, compacting: typed.replacesEntriesFile)
        // A flat-out session's log at a sync replaces the file even where
        // the policy keeps no book of it: its entries are nowhere else.
        if plan.compactsEntriesFile || typed.replacesEntriesFile {
            outbox.replace(session.name, epoch: session.epoch, with: session.log, newest: typed.entry)
        } else {
            record(typed)
        }
        if let reservation = plan.reservesNow {
            do {
                try append([.reservation(reservation)])
            } catch {
                policy.reservationFailed(reservation)
            }
        }
        return plan.attention
    }

    // MARK: Events

    /// An event is about to get `id`: if no reservation on disk covers it
    /// yet, one is written at once (rare: renewals are asked for at half).
    func prepareEventID(_ id: UInt64) {
        guard let reservation = policy.eventIDUsed(id) else { return }
        try? append([reservation])
    }

    // MARK: Syncing

    /// Writes the reservations asked for (on this queue, in the control
    /// log), then hands the outbox to the writer, which writes and syncs it
    /// on its own queue; `completion` runs on `queue` when it is done.
    /// While a sync is in progress the outbox keeps filling, and the sync
    /// in progress calls its completion.
    func sync(events: EventLog, replyingOn queue: DispatchQueue, completion: @escaping @Sendable () -> Void) {
        guard !isSyncing else { return }
        let reservations = policy.wantedReservations
        if !reservations.isEmpty { try? append(reservations) }
        guard !outbox.isEmpty || hasNewEvents(events) || writerHasUnwritten else {
            queue.async(execute: completion)
            return
        }
        isSyncing = true
        let outbox = takeOutbox(events: events)
        let writer = self.writer
        writer.queue.async { [self] in
            let started = Syscalls.monotonicNanoseconds()
            var written = writer.write(outbox)
            written.nanoseconds = Syscalls.monotonicNanoseconds() &- started
            let outcome = written
            // Emptied on the daemon's queue, once this one no longer
            // shares it: emptying a shared array would allocate anew.
            let spare = outbox.entries
            queue.async { [self] in
                spareEntries = spare
                synced(outcome)
                completion()
            }
        }
    }

    /// The outbox, leaving an empty one, with the events recorded since
    /// the last: those the event log still holds (it keeps the newest, as
    /// the file does; older ones that more than its capacity pushed out
    /// would only be dropped by the file's next rewrite). Past twice the
    /// log's capacity in the file, the file is rewritten with the log's.
    private func takeOutbox(events log: EventLog) -> Outbox {
        var taken = outbox
        if let newest = log.newest, newest.id > handedEventID {
            let new = log.retained.dropFirst(log.position(afterID: handedEventID))
            if eventsInFile + new.count >= 2 * log.capacity {
                taken.eventsFile = log.retained
                eventsInFile = log.count
            } else {
                taken.newEvents = new
                eventsInFile += new.count
            }
            handedEventID = newest.id
        }
        var spare = JournalBatch()
        swap(&spare, &spareEntries)
        outbox = Outbox()
        outbox.entries = JournalBatch(reusing: consume spare)
        // Only now is the taken buffer not shared with `outbox`: sealing it
        // before would have copied it whole.
        taken.entries.seal()
        return taken
    }

    private func synced(_ outcome: FileWriter.Outcome) {
        isSyncing = false
        writerHasUnwritten = outcome.hasUnwritten
        if let failure = outcome.failure {
            counters.failedEntrySyncs &+= 1
            _ = noteFailure(failure)
        } else {
            counters.entrySyncs.observe(nanoseconds: outcome.nanoseconds)
            noteSuccess()
        }
    }

    // MARK: Compacting the control log

    /// Starts a new segment of the control log and has the writer write a
    /// snapshot of `sessions` (every session's state as the segments so far
    /// hold it), then remove those segments.
    func compact(
        _ sessions: [SessionSnapshot], nextEpoch: UInt64, nextEventID: UInt64, replyingOn queue: DispatchQueue
    ) {
        let covered = controlLog.segment
        do {
            try controlLog.startNextSegment()
        } catch {
            counters.failedSnapshots &+= 1
            _ = noteFailure(error.message)
            return
        }
        policy.beganSnapshot(nextSegment: controlLog.segment, segmentBytes: controlLog.length)
        let state = self.state(of: sessions, nextEpoch: nextEpoch, nextEventID: nextEventID, exact: false)
        let writer = self.writer
        writer.queue.async { [self] in
            let outcome = Result { () throws(StorageError) in try writer.writeSnapshot(state, segment: covered) }
            queue.async { [self] in
                switch outcome {
                case .success(let bytes):
                    policy.finishedSnapshot(bytes: bytes)
                case .failure(let error):
                    counters.failedSnapshots &+= 1
                    policy.finishedSnapshot(bytes: nil)
                    report(.warning, "cannot compact the control log yet: \(error.message)")
                }
            }
        }
    }

    /// The control state of `sessions`, with the reservations on disk (or,
    /// `exact`, none beyond what was handed out: a clean shutdown). The
    /// snapshot replaces the segments that hold the event ids' reservation,
    /// so it must carry it: without it, ids would be given again after a crash.
    private func state(
        of sessions: [SessionSnapshot], nextEpoch: UInt64, nextEventID: UInt64, exact: Bool
    ) -> ControlState {
        var state = ControlState()
        state.nextEpoch = nextEpoch
        state.eventsReservedID = exact ? nextEventID : max(policy.eventsReservedID, nextEventID)
        for snapshot in sessions {
            guard !exact, let book = policy.books[snapshot.name], book.epoch == snapshot.epoch else {
                state.sessions[snapshot.name] = StoredSession.exact(snapshot)
                continue
            }
            state.sessions[snapshot.name] = StoredSession(
                snapshot: snapshot, reservedID: max(book.reservedID, snapshot.nextID),
                reservedNumber: max(book.reservedNumber, snapshot.nextNumber))
        }
        return state
    }

    /// At a clean shutdown: waits for a sync or snapshot in progress, then
    /// writes everything, folds the journal, and writes a snapshot of each
    /// session's exact state.
    func close(_ sessions: [SessionSnapshot], events: EventLog, nextEpoch: UInt64) {
        let outbox = takeOutbox(events: events)
        let nextEventID = events.nextID
        let writer = self.writer
        let state = self.state(of: sessions, nextEpoch: nextEpoch, nextEventID: nextEventID, exact: true)
        let segment = controlLog.segment
        let failure = writer.queue.sync { writer.close(outbox, state: state, segment: segment) }
        if let failure { _ = noteFailure(failure) }
    }

    /// A reload changed `control_log_size`.
    func changeControlLogLimit(to limit: Int) {
        policy.segmentLimit = limit
    }

    /// A reload changed `journal_size`.
    func changeJournalLimit(to limit: Int) {
        let writer = self.writer
        writer.queue.async { writer.journalLimit = limit }
    }

    /// A reload changed `sync_interval`, on which reservation sizes depend.
    func changeSyncInterval(to syncInterval: Interval, sessionIntervals: [SessionName: Interval]) {
        policy.changeSyncInterval(to: syncInterval, intervals: sessionIntervals)
    }

    // MARK: Reporting

    /// Records a failure; the first one after a good spell goes to the journal.
    func noteFailure(_ message: String) -> StorageError {
        if problem == nil {
            report(
                .error,
                "storage trouble: \(message); control actions answer storage-error and typing continues in memory "
                    + "until the state directory is writable again (retried every sync_interval)")
        }
        problem = message
        return StorageError(message)
    }

    /// Notes that the disk takes writes again, once after trouble: when
    /// nothing that failed is still waiting (what typing buffered since the
    /// last sync has not failed).
    func noteSuccess() {
        guard problem != nil, !writerHasUnwritten else { return }
        problem = nil
        report(.notice, "storage recovered: every session and entry is written to \(writer.directory) again")
    }
}
