import MonkeyCore
import MonkeyShell

/// The durable store: one state file and one entries file per session in
/// the state directory. Control actions are written through at once; typed
/// entries are buffered and written by `sync()`, which the daemon calls at
/// least every `sync_interval` while there is something to write.
///
/// Owned by the daemon's queue, like the engine that calls it.
final class FileStore: SessionStore {
    let directory: String
    var syncInterval: Interval
    let report: (LogPriority, String) -> Void
    var sessions: [SessionName: SessionFiles] = [:]
    /// Sessions with entries or a reservation to write at the next sync.
    var dirty: Set<SessionName> = []
    /// What is wrong with the disk, while something is; reported once.
    var problem: String?

    /// What the store knows of one session's files.
    final class SessionFiles {
        /// What the state file holds.
        var written: StoredSession
        /// Bytes of the entries file holding its header and good records.
        var length: Int
        var recordCount: Int
        /// Encoded records not yet written; with `replacesFile`, a whole
        /// new file (header included) that replaces the old one.
        var pending: [UInt8] = []
        var pendingCount = 0
        var replacesFile = false
        /// A snapshot to write with a fresh reservation at the next sync.
        var wantedReservation: SessionSnapshot?
        /// A failed write may have left bytes past `length`.
        var mayHaveGarbage = false
        /// Reserving at a tick failed: retried at each sync, not at each tick.
        var reservationFailing = false

        init(written: StoredSession, length: Int, recordCount: Int) {
            self.written = written
            self.length = length
            self.recordCount = recordCount
        }
    }

    init(directory: String, syncInterval: Interval, report: @escaping (LogPriority, String) -> Void) {
        self.directory = directory
        self.syncInterval = syncInterval
        self.report = report
    }

    var hasPendingWrites: Bool { !dirty.isEmpty }

    func statePath(_ name: SessionName) -> String { "\(directory)/\(name.text).state" }
    func entriesPath(_ name: SessionName) -> String { "\(directory)/\(name.text).entries" }

    // MARK: SessionStore

    func save(_ snapshot: SessionSnapshot) throws(StorageError) {
        do {
            try saveState(snapshot)
        } catch {
            throw noteFailure(error.message)
        }
        noteSuccess()
    }

    func clear(_ snapshot: SessionSnapshot) throws(StorageError) {
        do {
            if let files = sessions[snapshot.name] {
                // Entries first: a crash before the state is written leaves the
                // old numbering with no entries, never old entries in a new epoch.
                try writeFreshEntriesFile(snapshot.name)
                files.length = EntryFile.header.count
                files.recordCount = 0
                files.pending = []
                files.pendingCount = 0
                files.replacesFile = false
                files.mayHaveGarbage = false
            }
            try saveState(snapshot)
        } catch {
            throw noteFailure(error.message)
        }
        noteSuccess()
    }

    private func saveState(_ snapshot: SessionSnapshot) throws(StorageError) {
        let name = snapshot.name
        let ahead = reservationSize(snapshot.settings.interval)
        if let files = sessions[name] {
            let stored = StoredSession.reserving(snapshot, ahead: ahead, current: files.written.reservedID)
            try writeState(stored, syncingDirectory: true)
            files.written = stored
            files.wantedReservation = nil
            files.reservationFailing = false
        } else {
            // A new session starts with an empty entries file, whatever a crash left behind.
            try writeFreshEntriesFile(name)
            let stored = StoredSession.reserving(snapshot, ahead: ahead, current: 0)
            try writeState(stored, syncingDirectory: true)
            sessions[name] = SessionFiles(written: stored, length: EntryFile.header.count, recordCount: 0)
        }
    }

    func delete(_ name: SessionName) throws(StorageError) {
        do {
            // The state file first: without it the session is gone, and a
            // left-over entries file is removed at the next start.
            try Syscalls.removeFile(statePath(name))
            try Syscalls.removeFile(entriesPath(name))
            try syncDirectory()
        } catch {
            throw noteFailure("cannot delete the files of session \(name): \(error)")
        }
        sessions[name] = nil
        dirty.remove(name)
        noteSuccess()
    }

    func append(_ entry: Entry, to session: Session) {
        guard let files = sessions[session.name] else { return }
        EntryFile.appendRecord(entry, to: &files.pending)
        files.pendingCount += 1
        dirty.insert(session.name)
        let retention = session.log.capacity
        let onDisk = files.replacesFile ? 0 : files.recordCount
        if onDisk + files.pendingCount > 2 * retention {
            // Compaction: the retained log replaces the file at the next sync.
            files.pending = EntryFile.encode((0..<session.log.count).lazy.map { session.log[$0] })
            files.pendingCount = session.log.count
            files.replacesFile = true
        }
        let reserved = files.written.reservedID
        if entry.id >= reserved && !files.reservationFailing {
            // About to hand out an id that a crash could give again: reserve now.
            do {
                let stored = StoredSession.reserving(
                    session.snapshot, ahead: reservationSize(session.settings.interval), current: reserved)
                try writeState(stored, syncingDirectory: true)
                files.written = stored
                files.wantedReservation = nil
            } catch {
                files.wantedReservation = session.snapshot
                files.reservationFailing = true
                _ = noteFailure(error.message)
            }
        } else if files.wantedReservation == nil
            && entry.id + reservationSize(session.settings.interval) / 2 >= reserved
        {
            files.wantedReservation = session.snapshot
        }
    }

    // MARK: Syncing

    /// Above this many sessions to sync, appends are written first and made
    /// durable by one `syncfs` instead of one `fdatasync` each.
    static let batchThreshold = 2

    /// Writes and syncs everything buffered; what fails stays buffered for
    /// the next call (appends are written again at the same offset).
    ///
    /// Many sessions are synced together: appends and new reservations are
    /// written first, made durable by one `syncfs`, and only then are the
    /// state files renamed into place and the directory synced once.
    func sync() {
        var failure: String?
        var replacedFiles = false
        let batched = dirty.count > FileStore.batchThreshold
        var appended: [(SessionName, SessionFiles)] = []
        var reservations: [(SessionFiles, StoredSession)] = []
        for name in dirty.sorted() {
            guard let files = sessions[name] else {
                dirty.remove(name)
                continue
            }
            do {
                if let snapshot = files.wantedReservation {
                    let stored = StoredSession.reserving(
                        snapshot, ahead: reservationSize(snapshot.settings.interval),
                        current: files.written.reservedID)
                    try writeTemporaryState(stored, syncing: !batched)
                    reservations.append((files, stored))
                }
                if files.replacesFile {
                    try replaceEntriesFile(name, with: files.pending)
                    files.length = 0
                    files.recordCount = 0
                    files.mayHaveGarbage = false
                    replacedFiles = true
                } else if files.pendingCount > 0 {
                    try appendPending(files, to: name, syncing: !batched)
                    if batched {
                        appended.append((name, files))
                        continue
                    }
                }
                written(files, name)
            } catch {
                failure = failure ?? "cannot write the entries of session \(name): \(error.message)"
            }
        }
        do {
            if batched && !(appended.isEmpty && reservations.isEmpty) { try syncFileSystem() }
            for (name, files) in appended { written(files, name) }
            replacedFiles = try install(reservations) || replacedFiles
            if replacedFiles { try syncDirectory() }
        } catch {
            for (files, stored) in reservations where files.wantedReservation != nil {
                discardTemporaryState(stored.snapshot.name)
                dirty.insert(stored.snapshot.name)
            }
            failure = failure ?? error.message
        }
        if let failure {
            _ = noteFailure(failure)
        } else {
            noteSuccess()
        }
    }

    /// Renames state files written and synced as temporary files into
    /// place; true if any was. The caller syncs the directory.
    private func install(_ states: [(SessionFiles, StoredSession)]) throws(StorageError) -> Bool {
        for (files, stored) in states {
            try installTemporaryState(stored.snapshot.name)
            files.written = stored
            files.wantedReservation = nil
            files.reservationFailing = false
        }
        return !states.isEmpty
    }

    /// The buffered records are on disk: the file now ends after them.
    private func written(_ files: SessionFiles, _ name: SessionName) {
        files.length += files.pending.count
        files.recordCount += files.pendingCount
        files.pending = []
        files.pendingCount = 0
        files.replacesFile = false
        dirty.remove(name)
    }

    /// At a clean shutdown: syncs, then writes each session's exact state so
    /// that the next start continues without a gap (all state files synced
    /// together).
    func close(_ snapshots: [SessionSnapshot]) {
        sync()
        var states: [(SessionFiles, StoredSession)] = []
        var failure: String?
        for snapshot in snapshots where !dirty.contains(snapshot.name) {
            guard let files = sessions[snapshot.name] else { continue }
            let stored = StoredSession.exact(snapshot)
            guard stored != files.written else { continue }
            do {
                try writeTemporaryState(stored, syncing: false)
                states.append((files, stored))
            } catch {
                failure = failure ?? error.message
            }
        }
        do {
            if !states.isEmpty { try syncFileSystem() }
            if try install(states) { try syncDirectory() }
        } catch {
            failure = failure ?? error.message
        }
        if let failure { _ = noteFailure(failure) }
    }

    func reservationSize(_ interval: Interval) -> UInt64 {
        StoredSession.reservationSize(interval: interval, syncInterval: syncInterval)
    }
}
