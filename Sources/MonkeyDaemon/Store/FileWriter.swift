import Dispatch
import MonkeyCore
import MonkeyShell

/// The entries side of the store: every file operation on the entries
/// journal, the sessions' entries files and the snapshot of the control
/// log, run on a queue of its own so that writing and syncing never holds up
/// ticks or connections (the control log itself is the daemon queue's, see
/// `ControlLog`).
///
/// Typed entries go to the journal, one append and one `fdatasync` per
/// sync however many sessions type; they reach each session's entries file
/// when the journal is folded (past `journalLimit`, at start-up and at a
/// clean shutdown). A session's entries are those of its epoch: entries of
/// an epoch that is no longer current (a CLEAR, a DELETE) are skipped when
/// folded and their file started afresh. Everything in it is reached only
/// on `queue` (or before the daemon starts, while loading).
final class FileWriter: @unchecked Sendable {
    let directory: String
    let queue = DispatchQueue(label: "monkeyd.storage")
    /// The entries file of each live session.
    var sessions: [SessionName: SessionFiles] = [:]
    /// Past this many bytes the journal is folded into the entries files.
    var journalLimit: Int
    /// The entries journal (created by its first append).
    var journal: AppendOnlyFile
    /// Journal records whose write failed, written again first next time.
    var journalUnwritten: [UInt8] = []
    /// Regroups each sync's entries by session for the fold (`JournalGrouping`).
    var grouping = JournalGrouping()
    /// A fold failed: it is tried again every `syncsBetweenFoldRetries`
    /// syncs, and until it succeeds the storage is not reported recovered.
    var isFoldFailing = false
    var syncsBeforeFoldRetry = 0
    static let syncsBetweenFoldRetries = 15
    /// The events file (created by its first append).
    var events: AppendOnlyFile
    /// Event records whose write failed, written again first next time.
    var eventsUnwritten: [UInt8] = []
    /// The newest event in the events file or in `eventsUnwritten`: a
    /// slice handed over is written from the event after it.
    var eventsThroughID: UInt64 = 0
    /// Where each event's record is assembled.
    let eventScratch = ByteBuffer()

    /// What the writer knows of one session's entries file.
    final class SessionFiles {
        /// The session's epoch: the entries that belong in the file.
        var epoch: UInt64
        /// The file holds entries of `epoch` (false: it is missing, or of
        /// another epoch, and the next fold or compaction writes it afresh).
        var isCurrent: Bool
        /// How far the file is written: its preamble and good records.
        var end: AppendOnlyFile.End
        /// The newest entry in the file (0 when it has none): a fold
        /// appends only what follows it.
        var lastID: UInt64
        var lastNumber: UInt64

        init(epoch: UInt64, isCurrent: Bool, length: Int, lastID: UInt64, lastNumber: UInt64) {
            self.epoch = epoch
            self.isCurrent = isCurrent
            self.end = AppendOnlyFile.End(length: length)
            self.lastID = lastID
            self.lastNumber = lastNumber
        }

        /// A session whose file is still to be written, for `epoch`.
        static func fresh(epoch: UInt64) -> SessionFiles {
            SessionFiles(epoch: epoch, isCurrent: false, length: 0, lastID: 0, lastNumber: 0)
        }
    }

    /// What a sync achieved, for the daemon's queue.
    struct Outcome: Sendable {
        var failure: String?
        /// Something failed and waits to be written again.
        var hasUnwritten = false
        /// How long the write took, for metrics (set by the caller, which times it).
        var nanoseconds: UInt64 = 0
    }

    init(directory: String, journalLimit: Int) {
        self.directory = directory
        self.journalLimit = journalLimit
        let journalPath = "\(directory)/journal"
        journal = AppendOnlyFile(
            path: journalPath, label: "the entries journal \(journalPath)", header: JournalFile.header, length: 0)
        let eventsPath = "\(directory)/events"
        events = AppendOnlyFile(
            path: eventsPath, label: "the events \(eventsPath)", header: EventFile.header, length: 0)
    }

    func entriesPath(_ name: SessionName) -> String { "\(directory)/\(name.text).entries" }
    var journalPath: String { journal.path }
    var eventsPath: String { events.path }
    var snapshotPath: String { "\(directory)/snapshot" }

    // MARK: Syncing

    /// Takes over the outbox, then writes and syncs everything
    /// outstanding; what fails is kept for the next call.
    ///
    /// Epoch changes come first (a new or cleared session's file is started
    /// afresh, a deleted session's removed); then
    /// compactions replace their entries files; typed entries are appended
    /// to the journal in one write and synced.
    func write(_ outbox: Outbox) -> Outcome {
        var outcome = Outcome()
        for (name, epoch) in outbox.epochChanges {
            guard let epoch else {
                sessions[name] = nil
                // Not synced: a file a crash brings back belongs to no session and is removed at start-up.
                _ = try? Syscalls.removeFile(entriesPath(name))
                continue
            }
            guard sessions[name]?.epoch != epoch else { continue }
            // Not synced: a file a crash loses is written again when it is next needed.
            do {
                try writeFreshEntriesFile(name, epoch: epoch)
                sessions[name] = SessionFiles(
                    epoch: epoch, isCurrent: true, length: EntryFile.preambleLength, lastID: 0, lastNumber: 0)
            } catch {
                sessions[name] = .fresh(epoch: epoch)
            }
        }
        var replacedFiles = false
        for replacement in outbox.replacements {
            guard let files = sessions[replacement.name], files.epoch == replacement.epoch else { continue }
            do {
                try replaceEntriesFile(files, of: replacement.name, with: replacement.file)
                files.isCurrent = true
                files.lastID = replacement.lastID
                files.lastNumber = replacement.lastNumber
                replacedFiles = true
            } catch {
                // The journal still holds the records: the file stays
                // correct, only longer until the session's next compaction.
                outcome.failure = outcome.failure ?? error.message
            }
        }
        // Records whose write failed go first, in the order they were typed.
        let grouped = grouping.group(outbox.entries) ?? outbox.entries.records.bytes
        let records = journalUnwritten.isEmpty ? grouped : (journalUnwritten + grouped)[...]
        do {
            try journal.append(records, sync: true)
            journalUnwritten = []
        } catch {
            journalUnwritten = Array(records)
            outcome.failure = outcome.failure ?? error.message
        }
        do {
            try writeEvents(outbox)
        } catch {
            outcome.failure = outcome.failure ?? error.message
        }
        if replacedFiles || outbox.eventsFile != nil {
            do {
                try syncDirectory()
            } catch {
                outcome.failure = outcome.failure ?? error.message
            }
        }
        if journal.length > journalLimit && journalUnwritten.isEmpty {
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
        outcome.hasUnwritten = !journalUnwritten.isEmpty || !eventsUnwritten.isEmpty || isFoldFailing
        return outcome
    }

    /// Writes the snapshot of the control log holding every segment up to
    /// `segment`, then removes those segments. Returns the snapshot's size.
    func writeSnapshot(_ state: ControlState, segment: UInt64) throws(StorageError) -> Int {
        let bytes = ControlFile.encodeSnapshot(state, segment: segment)
        try AppendOnlyFile.replaceFile(at: snapshotPath, with: bytes, what: "the snapshot of the sessions")
        try syncDirectory()
        removeSegments(through: segment)
        return bytes.count
    }

    /// Removes control log segments that a snapshot holds; what a failure
    /// leaves is removed at the next start.
    func removeSegments(through segment: UInt64) {
        guard let names = try? Syscalls.directoryEntries(directory) else { return }
        for name in names {
            guard let number = ControlLog.segment(ofFile: name), number <= segment else { continue }
            _ = try? Syscalls.removeFile("\(directory)/\(name)")
        }
    }

    /// At a clean shutdown: writes what is left, folds the journal into the
    /// entries files, then a snapshot of each session's exact state that
    /// holds every segment up to `segment`, so that the next start continues
    /// without a gap. Returns the first failure.
    func close(_ outbox: Outbox, state: ControlState, segment: UInt64) -> String? {
        var failure = write(outbox).failure
        if journal.length > 0 && journalUnwritten.isEmpty {
            do {
                try foldJournal()
            } catch {
                failure = failure ?? error.message
            }
        }
        do {
            _ = try writeSnapshot(state, segment: segment)
        } catch {
            failure = failure ?? error.message
        }
        return failure
    }
}
