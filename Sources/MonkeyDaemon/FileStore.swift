import Dispatch
import MonkeyCore
import MonkeyShell

/// The durable store: one state file and one entries file per session in
/// the state directory, and the entries journal that every session's typing
/// goes through. The daemon carries the engine's changes out here. Control actions are
/// written through at once; typed entries are encoded into the `Outbox` as
/// they are typed and handed to the `FileWriter`'s own queue at each sync,
/// at least every `sync_interval`, so that the disk's latency never
/// reaches a tick.
///
/// Owned by the daemon's queue.
final class FileStore: @unchecked Sendable {
    let writer: FileWriter
    private(set) var syncInterval: Interval
    let report: (LogPriority, String) -> Void
    var sessions: [SessionName: SessionBuffer] = [:]
    var outbox = Outbox()
    /// The records of the last sync's outbox, emptied once written: the
    /// next outbox fills the same memory rather than new pages.
    var spareRecords = RecordBuffer()
    /// Sessions that asked for a reservation since the last sync.
    var reservationRequests: [SessionBuffer] = []
    /// A sync is with the writer; the next waits for it.
    var isSyncing = false
    /// The writer holds records or reservations that failed and wait to be
    /// written again.
    var writerHasUnwritten = false
    /// What is wrong with the disk, while something is; reported once.
    var problem: String?

    /// What the daemon's queue keeps of one session between syncs.
    final class SessionBuffer {
        let name: SessionName
        /// Records in the entries file once everything handed over is
        /// written, counting entries up to `countedThroughID`: what decides
        /// when to compact.
        var recordsInFile: Int
        /// The newest id counted in `recordsInFile`. The entries typed after
        /// it went to the journal through `record`, one record per id.
        var countedThroughID: UInt64
        /// How far ids are reserved on disk, as far as this queue knows.
        var reservedID: UInt64
        /// A reservation to hand over at the next sync.
        var wantedReservation: SessionSnapshot?
        /// Reserving at a tick failed: retried at each sync, not at each tick.
        var reservationFailing = false
        /// How many ids a reservation covers, for the session's interval
        /// (kept here so that a tick need not look at its settings).
        var reservationSize: UInt64

        init(name: SessionName, recordsInFile: Int, nextID: UInt64, reservedID: UInt64, reservationSize: UInt64) {
            self.name = name
            self.recordsInFile = recordsInFile
            self.countedThroughID = nextID - 1
            self.reservedID = reservedID
            self.reservationSize = reservationSize
        }
    }

    init(
        directory: String, syncInterval: Interval, journalLimit: Int,
        report: @escaping (LogPriority, String) -> Void
    ) {
        self.writer = FileWriter(directory: directory, journalLimit: journalLimit)
        self.syncInterval = syncInterval
        self.report = report
    }

    var hasPendingWrites: Bool { !outbox.isEmpty || !reservationRequests.isEmpty || writerHasUnwritten }
    /// So much is buffered that it should be written now.
    var wantsEarlySync: Bool { outbox.isLarge }

    /// Loads every session (before the daemon starts) and reserves ids for
    /// those that type again.
    func load(retention: Int) throws(StorageError) -> [Session] {
        let loaded = try writer.load(retention: retention, report: report)
        if let failure = writer.reserveAhead(
            loaded.map(\.session).filter(\.isTyping).map(\.snapshot),
            ahead: { reservationSize($0.settings.interval) })
        {
            _ = noteFailure(failure)
        }
        for (session, recordCount) in loaded {
            guard let files = writer.sessions[session.name] else { continue }
            sessions[session.name] = SessionBuffer(
                name: session.name, recordsInFile: recordCount, nextID: session.nextID,
                reservedID: files.written.reservedID, reservationSize: reservationSize(session.settings.interval))
        }
        return loaded.map(\.session)
    }

    // MARK: Control actions, durable when they return

    /// Makes a change of the engine durable.
    func perform(_ effect: Effect) throws(StorageError) {
        switch effect {
        case .save(let snapshot): try save(snapshot)
        case .clear(let snapshot): try clear(snapshot)
        case .delete(let name): try delete(name)
        }
    }

    /// Makes the session's settings and state durable.
    func save(_ snapshot: SessionSnapshot) throws(StorageError) {
        let ahead = reservationSize(snapshot.settings.interval)
        let buffer = sessions[snapshot.name]
        let reservedID = try onWriter { writer throws(StorageError) in try writer.save(snapshot, ahead: ahead) }
        if let buffer {
            buffer.reservationSize = ahead
            reserved(reservedID, by: buffer)
        } else {
            sessions[snapshot.name] = SessionBuffer(
                name: snapshot.name, recordsInFile: 0, nextID: snapshot.nextID, reservedID: reservedID,
                reservationSize: ahead)
        }
    }

    /// Drops the session's entries and saves its new state, durably.
    func clear(_ snapshot: SessionSnapshot) throws(StorageError) {
        let ahead = reservationSize(snapshot.settings.interval)
        let reservedID = try onWriter { writer throws(StorageError) in try writer.clear(snapshot, ahead: ahead) }
        guard let buffer = sessions[snapshot.name] else { return }
        outbox.drop(snapshot.name)
        buffer.recordsInFile = 0
        buffer.countedThroughID = snapshot.nextID - 1
        buffer.reservationSize = ahead
        reserved(reservedID, by: buffer)
    }

    /// Removes the session and its entries.
    func delete(_ name: SessionName) throws(StorageError) {
        try onWriter { writer throws(StorageError) in try writer.delete(name) }
        if let buffer = sessions[name] {
            outbox.drop(name)
            buffer.wantedReservation = nil
        }
        sessions[name] = nil
    }

    // MARK: Typed entries

    /// Records an entry that `name` typed before the id the store last
    /// asked to see itself (see `append`): most entries, which then reach
    /// the journal and not each session's own bookkeeping.
    func record(_ entry: Entry, of name: SessionName) {
        outbox.append(entry, session: name)
    }

    /// Records an entry just typed by `session` with the session's
    /// bookkeeping: counting records toward compaction and reserving ids
    /// ahead. Returns the id of the next entry it must see itself (the
    /// entries before it go to `record`), or nil when it keeps nothing of
    /// the session. After the engine changes the session, or the
    /// configuration is reloaded, it shows the store the next entry again.
    func append(_ entry: Entry, to session: Session) -> UInt64? {
        guard let buffer = sessions[session.name] else { return nil }
        // The entries since the last one this buffer saw went to the journal through `record`.
        buffer.recordsInFile += Int(truncatingIfNeeded: entry.id - 1 - min(buffer.countedThroughID, entry.id - 1))
        buffer.countedThroughID = entry.id
        if buffer.recordsInFile >= 2 * session.log.capacity {
            // Compaction: the retained log (this entry included) replaces the file.
            outbox.replace(
                buffer.name, with: EntryFile.encode((0..<session.log.count).lazy.map { session.log[$0] }),
                newest: entry)
            buffer.recordsInFile = session.log.count
        } else {
            outbox.append(entry, session: session.name)
            buffer.recordsInFile += 1
        }
        let ahead = buffer.reservationSize
        if entry.id >= buffer.reservedID && !buffer.reservationFailing {
            // About to hand out an id that a crash could give again: reserve
            // now, waiting for the writer (rare: renewals are asked for at half).
            let snapshot = session.snapshot
            do {
                let reservedID = try onWriter { writer throws(StorageError) in
                    try writer.reserve(snapshot, ahead: ahead)
                }
                reserved(reservedID, by: buffer)
            } catch {
                requestReservation(snapshot, by: buffer)
                buffer.reservationFailing = true
            }
        } else if buffer.wantedReservation == nil && entry.id + ahead / 2 >= buffer.reservedID {
            requestReservation(session.snapshot, by: buffer)
        }
        return nextAttention(after: entry, capacity: session.log.capacity, buffer: buffer)
    }

    /// The id of the first entry after `entry` for which one of the checks
    /// above could come out otherwise. A sync that grants a reservation
    /// only moves that id later, so the answer stays safe until the store
    /// next changes the session (when the engine asks again).
    private func nextAttention(after entry: Entry, capacity: Int, buffer: SessionBuffer) -> UInt64 {
        guard !buffer.reservationFailing else { return entry.id + 1 }
        let compaction = entry.id + 1 + UInt64(max(0, 2 * capacity - buffer.recordsInFile))
        let reservation =
            buffer.wantedReservation == nil
            ? buffer.reservedID - min(buffer.reservedID, buffer.reservationSize / 2) : buffer.reservedID
        return min(compaction, reservation)
    }

    private func requestReservation(_ snapshot: SessionSnapshot, by buffer: SessionBuffer) {
        if buffer.wantedReservation == nil { reservationRequests.append(buffer) }
        buffer.wantedReservation = snapshot
    }

    private func reserved(_ reservedID: UInt64, by buffer: SessionBuffer) {
        // Results of an earlier sync may arrive after a later control action.
        buffer.reservedID = max(buffer.reservedID, reservedID)
        buffer.wantedReservation = nil
        buffer.reservationFailing = false
    }

    /// Runs a control action on the writer's queue and waits for it, after
    /// any sync in progress: the action is durable when this returns.
    private func onWriter<Result: Sendable>(
        _ action: @Sendable (FileWriter) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        let writer = self.writer
        let outcome = writer.queue.sync { () -> Swift.Result<Result, StorageError> in
            do throws(StorageError) {
                return .success(try action(writer))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let value):
            noteSuccess()
            return value
        case .failure(let error):
            throw noteFailure(error.message)
        }
    }

    // MARK: Syncing

    /// Hands the outbox to the writer, which writes and syncs it on its own
    /// queue; `completion` runs on `queue` when it is done. While a sync is
    /// in progress this does nothing: the outbox keeps filling, and the sync
    /// in progress calls its completion.
    func sync(replyingOn queue: DispatchQueue, completion: @escaping @Sendable () -> Void) {
        guard !isSyncing, hasPendingWrites else { return }
        isSyncing = true
        let outbox = takeOutbox()
        let writer = self.writer
        writer.queue.async { [self] in
            let outcome = writer.write(outbox)
            var emptied = outbox.entries.records
            emptied.removeAll()
            queue.async { [self, emptied] in
                spareRecords = emptied
                synced(outcome)
                completion()
            }
        }
    }

    /// The outbox with the reservations asked for, leaving an empty one.
    private func takeOutbox() -> Outbox {
        var taken = outbox
        var room = RecordBuffer()
        swap(&room, &spareRecords)
        outbox = Outbox()
        outbox.entries = JournalBatch(reusing: consume room)
        // Only now is the taken buffer not shared with `outbox`: sealing it
        // before would have copied it whole.
        taken.entries.seal()
        for buffer in reservationRequests {
            guard let snapshot = buffer.wantedReservation else { continue }
            taken.reservations.append((snapshot, buffer.reservationSize))
        }
        reservationRequests.removeAll()
        return taken
    }

    private func synced(_ outcome: FileWriter.Outcome) {
        isSyncing = false
        writerHasUnwritten = outcome.hasUnwritten
        for (name, reservedID) in outcome.reservedIDs {
            guard let buffer = sessions[name] else { continue }
            reserved(reservedID, by: buffer)
        }
        if let failure = outcome.failure {
            _ = noteFailure(failure)
        } else {
            noteSuccess()
        }
    }

    /// At a clean shutdown: waits for a sync in progress, then writes
    /// everything and each session's exact state.
    func close(_ snapshots: [SessionSnapshot]) {
        let outbox = takeOutbox()
        let writer = self.writer
        let failure = writer.queue.sync { writer.close(outbox, snapshots: snapshots) }
        if let failure { _ = noteFailure(failure) }
    }

    /// A reload changed `journal_size`.
    func changeJournalLimit(to limit: Int) {
        let writer = self.writer
        writer.queue.async { writer.journalLimit = limit }
    }

    /// A reload changed `sync_interval`, on which reservation sizes depend.
    func changeSyncInterval(to syncInterval: Interval, sessionIntervals: [(SessionName, Interval)]) {
        self.syncInterval = syncInterval
        for (name, interval) in sessionIntervals {
            sessions[name]?.reservationSize = reservationSize(interval)
        }
    }

    func reservationSize(_ interval: Interval) -> UInt64 {
        StoredSession.reservationSize(interval: interval, syncInterval: syncInterval)
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
