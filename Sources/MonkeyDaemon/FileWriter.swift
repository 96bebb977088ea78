import Dispatch
import MonkeyCore
import MonkeyShell

/// The disk side of the store: every file operation on the session files
/// and the entries journal, run on a queue of its own so that writing and
/// syncing never holds up ticks or connections on the daemon's queue.
///
/// Typed entries go to the journal, one append and one `fdatasync` per
/// sync however many sessions type; they reach each session's entries file
/// when the journal is folded (past `journalLimit`, at start-up and at a
/// clean shutdown). Everything in it is reached only on `queue` (or before
/// the daemon starts, while loading); `FileStore` hands it work and gets
/// results back.
final class FileWriter: @unchecked Sendable {
    let directory: String
    let queue = DispatchQueue(label: "monkeyd.storage")
    var sessions: [SessionName: SessionFiles] = [:]
    /// Sessions with a reservation still to write.
    var dirty: Set<SessionName> = []
    /// Past this many bytes the journal is folded into the entries files.
    var journalLimit: Int
    /// Bytes of the journal holding its header and good records; 0 when
    /// there is none.
    var journalLength = 0
    /// Journal records whose write failed, written again first next time.
    var journalUnwritten: [UInt8] = []
    /// A failed write may have left bytes past `journalLength`.
    var journalMayHaveGarbage = false
    /// A fold failed: it is tried again every `syncsBetweenFoldRetries`
    /// syncs, and until it succeeds the storage is not reported recovered.
    var isFoldFailing = false
    var syncsBeforeFoldRetry = 0
    static let syncsBetweenFoldRetries = 15
    /// Sessions not loaded (set aside as damaged) that have records in a
    /// journal start-up could not fold: a new session of the same name
    /// must mark its fresh start there.
    var journalOrphans: Set<SessionName> = []

    /// What the writer knows of one session's files.
    final class SessionFiles {
        /// What the state file holds.
        var written: StoredSession
        /// Bytes of the entries file holding its header and good records.
        var length: Int
        /// The newest entry in the entries file (0 when it has none): a
        /// fold appends only what follows it.
        var lastID: UInt64
        var lastNumber: UInt64
        /// A snapshot to write with a fresh reservation.
        var wantedReservation: (snapshot: SessionSnapshot, ahead: UInt64)?
        /// A failed write may have left bytes past `length`.
        var mayHaveGarbage = false

        init(written: StoredSession, length: Int, lastID: UInt64, lastNumber: UInt64) {
            self.written = written
            self.length = length
            self.lastID = lastID
            self.lastNumber = lastNumber
        }
    }

    /// What a sync achieved, for the daemon's queue.
    struct Outcome: Sendable {
        /// Reservations now on disk, by session.
        var reservedIDs: [SessionName: UInt64] = [:]
        var failure: String?
        /// Something failed and waits to be written again.
        var hasUnwritten = false
    }

    init(directory: String, journalLimit: Int) {
        self.directory = directory
        self.journalLimit = journalLimit
    }

    func statePath(_ name: SessionName) -> String { "\(directory)/\(name.text).state" }
    func entriesPath(_ name: SessionName) -> String { "\(directory)/\(name.text).entries" }
    var journalPath: String { "\(directory)/journal" }

    // MARK: Control actions, each durable when it returns

    /// Writes the session's state, creating its files if it is new;
    /// returns how far its ids are now reserved.
    func save(_ snapshot: SessionSnapshot, ahead: UInt64) throws(StorageError) -> UInt64 {
        let name = snapshot.name
        if let files = sessions[name] {
            let stored = StoredSession.reserving(snapshot, ahead: ahead, current: files.written.reservedID)
            try writeState(stored, syncingDirectory: true)
            files.written = stored
            files.wantedReservation = nil
            return stored.reservedID
        }
        // A new session starts with an empty entries file, whatever a crash left behind.
        if journalOrphans.contains(name) { try markFreshStart(name) }
        try writeFreshEntriesFile(name)
        let stored = StoredSession.reserving(snapshot, ahead: ahead, current: 0)
        try writeState(stored, syncingDirectory: true)
        let files = SessionFiles(
            written: stored, length: EntryFile.header.count, lastID: 0, lastNumber: 0)
        sessions[name] = files
        return stored.reservedID
    }

    /// Marks the session's fresh start in the journal, empties its entries
    /// file, then saves its state.
    func clear(_ snapshot: SessionSnapshot, ahead: UInt64) throws(StorageError) -> UInt64 {
        if let files = sessions[snapshot.name] {
            try markFreshStart(snapshot.name)
            // Entries first: a crash before the state is written leaves the
            // old numbering with no entries, never old entries in a new epoch.
            try writeFreshEntriesFile(snapshot.name)
            files.length = EntryFile.header.count
            files.lastID = 0
            files.lastNumber = 0
            files.mayHaveGarbage = false
        }
        return try save(snapshot, ahead: ahead)
    }

    func delete(_ name: SessionName) throws(StorageError) {
        if sessions[name] != nil { try markFreshStart(name) }
        do {
            // The state file first: without it the session is gone, and a
            // left-over entries file is removed at the next start.
            try Syscalls.removeFile(statePath(name))
            try Syscalls.removeFile(entriesPath(name))
            try syncDirectory()
        } catch {
            throw StorageError("cannot delete the files of session \(name): \(error)")
        }
        sessions[name] = nil
        dirty.remove(name)
    }

    // MARK: Syncing

    /// Takes over the outbox, then writes and syncs everything
    /// outstanding; what fails is kept for the next call.
    ///
    /// Typed entries are appended to the journal in one write; new
    /// reservations are written as temporary state files, made durable
    /// together by one `syncfs`, then renamed into place with one sync of
    /// the directory. A compaction replaces its entries file at once.
    func write(_ outbox: Outbox) -> Outcome {
        var outcome = Outcome()
        var replacedFiles = false
        for replacement in outbox.replacements {
            guard let files = sessions[replacement.name] else { continue }
            do {
                try replaceEntriesFile(replacement.name, with: replacement.bytes)
                files.length = replacement.bytes.count
                files.lastID = replacement.lastID
                files.lastNumber = replacement.lastNumber
                files.mayHaveGarbage = false
                replacedFiles = true
            } catch {
                // The journal still holds the records: the file stays
                // correct, only longer until the session's next compaction.
                outcome.failure = outcome.failure ?? error.message
            }
        }
        for (snapshot, ahead) in outbox.reservations {
            guard let files = sessions[snapshot.name] else { continue }
            files.wantedReservation = (snapshot, ahead)
            dirty.insert(snapshot.name)
        }
        // Records whose write failed go first, in the order they were typed.
        let records =
            journalUnwritten.isEmpty
            ? outbox.entries.records.bytes : (journalUnwritten + outbox.entries.records.bytes)[...]
        do {
            try appendToJournal(records)
            journalUnwritten = []
        } catch {
            journalUnwritten = Array(records)
            outcome.failure = outcome.failure ?? error.message
        }
        var reservations: [(SessionFiles, StoredSession)] = []
        for name in dirty {
            guard let files = sessions[name], let (snapshot, ahead) = files.wantedReservation else {
                dirty.remove(name)
                continue
            }
            let stored = StoredSession.reserving(snapshot, ahead: ahead, current: files.written.reservedID)
            do {
                try writeTemporaryState(stored, syncing: false)
                reservations.append((files, stored))
            } catch {
                outcome.failure = outcome.failure ?? error.message
            }
        }
        do {
            if !reservations.isEmpty { try syncFileSystem() }
            replacedFiles = try install(reservations, into: &outcome) || replacedFiles
            if replacedFiles { try syncDirectory() }
        } catch {
            for (files, stored) in reservations where files.wantedReservation != nil {
                discardTemporaryState(stored.snapshot.name)
            }
            outcome.failure = outcome.failure ?? error.message
        }
        if journalLength > journalLimit && journalUnwritten.isEmpty {
            if syncsBeforeFoldRetry > 0 {
                syncsBeforeFoldRetry -= 1
            } else {
                do {
                    try foldJournal()
                } catch {
                    // Reading the whole journal at every sync would cost
                    // more than it saves: a failed fold waits a few syncs.
                    isFoldFailing = true
                    syncsBeforeFoldRetry = FileWriter.syncsBetweenFoldRetries
                    outcome.failure = outcome.failure ?? error.message
                }
            }
        }
        outcome.hasUnwritten = !dirty.isEmpty || !journalUnwritten.isEmpty || isFoldFailing
        return outcome
    }

    /// Renames state files written (and synced) as temporary files into
    /// place; true if any was. The caller syncs the directory.
    private func install(_ states: [(SessionFiles, StoredSession)], into outcome: inout Outcome)
        throws(StorageError) -> Bool
    {
        for (files, stored) in states {
            let name = stored.snapshot.name
            try installTemporaryState(name)
            files.written = stored
            files.wantedReservation = nil
            dirty.remove(name)
            outcome.reservedIDs[name] = stored.reservedID
        }
        return !states.isEmpty
    }

    /// Writes a reservation at once: a tick is about to hand out an id that
    /// a crash could give again.
    func reserve(_ snapshot: SessionSnapshot, ahead: UInt64) throws(StorageError) -> UInt64 {
        guard let files = sessions[snapshot.name] else { return 0 }
        let stored = StoredSession.reserving(snapshot, ahead: ahead, current: files.written.reservedID)
        try writeState(stored, syncingDirectory: true)
        files.written = stored
        files.wantedReservation = nil
        return stored.reservedID
    }

    /// At a clean shutdown: writes what is left and folds the journal into
    /// the entries files, then writes each session's exact state so that the
    /// next start continues without a gap (all state files synced
    /// together). Returns the first failure.
    func close(_ outbox: Outbox, snapshots: [SessionSnapshot]) -> String? {
        var failure = write(outbox).failure
        if journalLength > 0 && journalUnwritten.isEmpty {
            do {
                try foldJournal()
            } catch {
                failure = failure ?? error.message
            }
        }
        var states: [(SessionFiles, StoredSession)] = []
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
            var outcome = Outcome()
            if !states.isEmpty { try syncFileSystem() }
            if try install(states, into: &outcome) { try syncDirectory() }
        } catch {
            failure = failure ?? error.message
        }
        return failure
    }
}
