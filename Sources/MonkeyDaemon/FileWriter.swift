import Dispatch
import MonkeyCore
import MonkeyShell

/// The disk side of the store: every file operation on the session files,
/// run on a queue of its own so that writing and syncing thousands of
/// session files never holds up ticks or connections on the daemon's queue.
///
/// Everything in it is reached only on `queue` (or before the daemon
/// starts, while loading); `FileStore` hands it work and gets results back.
final class FileWriter: @unchecked Sendable {
    let directory: String
    let queue = DispatchQueue(label: "monkeyd.storage")
    var sessions: [SessionName: SessionFiles] = [:]
    /// The same sessions by the key their records carry in the outbox; a
    /// key retired by CLEAR or DELETE is absent, and its records dropped.
    var byKey: [Int: SessionFiles] = [:]
    /// Sessions with records or a reservation still to write.
    var dirty: Set<SessionName> = []

    /// What the writer knows of one session's files.
    final class SessionFiles {
        var key: Int?
        /// What the state file holds.
        var written: StoredSession
        /// Bytes of the entries file holding its header and good records.
        var length: Int
        /// Records handed over but not yet written (a failed write keeps
        /// them here for the next try); with `replacesFile`, a whole new
        /// file, header included, that replaces the old one.
        var unwritten: [UInt8] = []
        var replacesFile = false
        /// A snapshot to write with a fresh reservation.
        var wantedReservation: (snapshot: SessionSnapshot, ahead: UInt64)?
        /// A failed write may have left bytes past `length`.
        var mayHaveGarbage = false
        /// Listed among the sessions an outbox touched.
        var isTouched = false

        init(written: StoredSession, length: Int) {
            self.written = written
            self.length = length
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

    init(directory: String) {
        self.directory = directory
    }

    func statePath(_ name: SessionName) -> String { "\(directory)/\(name.text).state" }
    func entriesPath(_ name: SessionName) -> String { "\(directory)/\(name.text).entries" }

    /// Names the session's files by `key` in the outbox, retiring its old key.
    func assign(_ key: Int, to files: SessionFiles) {
        if let old = files.key { byKey[old] = nil }
        files.key = key
        byKey[key] = files
    }

    // MARK: Control actions, each durable when it returns

    /// Writes the session's state, creating its files (known by `key`) if
    /// it is new; returns how far its ids are now reserved.
    func save(_ snapshot: SessionSnapshot, ahead: UInt64, key: Int) throws(StorageError) -> UInt64 {
        let name = snapshot.name
        if let files = sessions[name] {
            let stored = StoredSession.reserving(snapshot, ahead: ahead, current: files.written.reservedID)
            try writeState(stored, syncingDirectory: true)
            files.written = stored
            files.wantedReservation = nil
            return stored.reservedID
        }
        // A new session starts with an empty entries file, whatever a crash left behind.
        try writeFreshEntriesFile(name)
        let stored = StoredSession.reserving(snapshot, ahead: ahead, current: 0)
        try writeState(stored, syncingDirectory: true)
        let files = SessionFiles(written: stored, length: EntryFile.header.count)
        sessions[name] = files
        assign(key, to: files)
        return stored.reservedID
    }

    /// Empties the session's entries file, then saves its state; from now
    /// on its records carry `key`, and those typed before are dropped.
    func clear(_ snapshot: SessionSnapshot, ahead: UInt64, key: Int) throws(StorageError) -> UInt64 {
        if let files = sessions[snapshot.name] {
            assign(key, to: files)
            // Entries first: a crash before the state is written leaves the
            // old numbering with no entries, never old entries in a new epoch.
            try writeFreshEntriesFile(snapshot.name)
            files.length = EntryFile.header.count
            files.unwritten = []
            files.replacesFile = false
            files.mayHaveGarbage = false
            if files.wantedReservation == nil { dirty.remove(snapshot.name) }
        }
        return try save(snapshot, ahead: ahead, key: key)
    }

    func delete(_ name: SessionName) throws(StorageError) {
        do {
            // The state file first: without it the session is gone, and a
            // left-over entries file is removed at the next start.
            try Syscalls.removeFile(statePath(name))
            try Syscalls.removeFile(entriesPath(name))
            try syncDirectory()
        } catch {
            throw StorageError("cannot delete the files of session \(name): \(error)")
        }
        if let key = sessions[name]?.key { byKey[key] = nil }
        sessions[name] = nil
        dirty.remove(name)
    }

    // MARK: Syncing

    /// Above this many sessions to sync, appends are written first and made
    /// durable by one `syncfs` instead of one `fdatasync` each.
    static let batchThreshold = 2

    /// Takes over the outbox, then writes and syncs everything
    /// outstanding; what fails is kept for the next call (appends are
    /// written again at the same offset).
    ///
    /// Many sessions are synced together: appends and new reservations are
    /// written first, made durable by one `syncfs`, and only then are the
    /// state files renamed into place and the directory synced once.
    func write(_ outbox: Outbox) -> Outcome {
        var touched: [SessionFiles] = []
        outbox.bytes.withUnsafeBufferPointer { bytes in
            for item in outbox.items {
                guard let files = byKey[item.key] else { continue }
                if item.isReplacement {
                    files.unwritten = outbox.replacements[item.start]
                    files.replacesFile = true
                } else {
                    files.unwritten.append(contentsOf: bytes[item.start..<(item.start + item.length)])
                }
                if !files.isTouched {
                    files.isTouched = true
                    touched.append(files)
                }
            }
        }
        for (key, snapshot, ahead) in outbox.reservations {
            guard let files = byKey[key] else { continue }
            files.wantedReservation = (snapshot, ahead)
            dirty.insert(snapshot.name)
        }
        for files in touched {
            files.isTouched = false
            dirty.insert(files.written.snapshot.name)
        }
        var outcome = Outcome()
        var replacedFiles = false
        let batched = dirty.count > FileWriter.batchThreshold
        var appended: [(SessionName, SessionFiles)] = []
        var reservations: [(SessionFiles, StoredSession)] = []
        for name in dirty {
            guard let files = sessions[name] else {
                dirty.remove(name)
                continue
            }
            do {
                if let (snapshot, ahead) = files.wantedReservation {
                    let stored = StoredSession.reserving(snapshot, ahead: ahead, current: files.written.reservedID)
                    try writeTemporaryState(stored, syncing: !batched)
                    reservations.append((files, stored))
                }
                if files.replacesFile {
                    try replaceEntriesFile(name, with: files.unwritten)
                    files.length = files.unwritten.count
                    files.mayHaveGarbage = false
                    replacedFiles = true
                } else if !files.unwritten.isEmpty {
                    try appendUnwritten(files, to: name, syncing: !batched)
                    if batched {
                        appended.append((name, files))
                        continue
                    }
                    files.length += files.unwritten.count
                }
                files.unwritten = []
                files.replacesFile = false
                // With a reservation, the session is done once it is installed.
                if files.wantedReservation == nil { dirty.remove(name) }
            } catch {
                outcome.failure = outcome.failure ?? "cannot write the entries of session \(name): \(error.message)"
            }
        }
        do {
            if batched && !(appended.isEmpty && reservations.isEmpty) { try syncFileSystem() }
            for (name, files) in appended {
                files.length += files.unwritten.count
                files.unwritten = []
                if files.wantedReservation == nil { dirty.remove(name) }
            }
            replacedFiles = try install(reservations, into: &outcome) || replacedFiles
            if replacedFiles { try syncDirectory() }
        } catch {
            for (files, stored) in reservations where files.wantedReservation != nil {
                discardTemporaryState(stored.snapshot.name)
                dirty.insert(stored.snapshot.name)
            }
            outcome.failure = outcome.failure ?? error.message
        }
        outcome.hasUnwritten = !dirty.isEmpty
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
            if files.unwritten.isEmpty { dirty.remove(name) }
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

    /// At a clean shutdown: writes what is left, then each session's exact
    /// state so that the next start continues without a gap (all state
    /// files synced together). Returns the first failure.
    func close(_ outbox: Outbox, snapshots: [SessionSnapshot]) -> String? {
        var failure = write(outbox).failure
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
