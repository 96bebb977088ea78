import MonkeyCore

/// What the storage thread is to write at the next sync, for every session
/// at once: typed entries as journal records in one buffer (handing it over
/// is one move and writing it one `write`, however many sessions type),
/// compacted entries files, and the epochs that changed since the last
/// sync.
struct Outbox: Sendable {
    /// Typed entries, in typing order.
    var entries = JournalBatch()
    /// Whole entries files (compactions) that replace a session's file,
    /// with the newest entry they hold.
    var replacements: [Replacement] = []
    var replacementBytes = 0
    /// Where each session's newest waiting replacement is in `replacements`.
    private var replacementIndex: [SessionName: Int] = [:]
    /// Sessions whose epoch changed (created, cleared) or that are gone
    /// (nil): only the newest epoch of each, since the writer starts the
    /// file afresh for it. A stream of CLEARs of one session between two
    /// syncs so costs one file, not one each.
    var epochChanges: [SessionName: UInt64?] = [:]
    /// Events of the stream recorded since the last sync, to append to the
    /// events file; or, when the file is due to be rewritten, the events it
    /// is to hold (the event log's newest) instead. Both are slices of the
    /// event log and the storage thread encodes them: handing them over
    /// costs the daemon's queue one copy of a reference per sync, not an
    /// encoding per event (a third of what a pipelined change cost).
    var newEvents: ArraySlice<EventRecord> = []
    var eventsFile: ArraySlice<EventRecord>?

    struct Replacement: Sendable {
        let name: SessionName
        let epoch: UInt64
        /// The session's retained entries when it compacted: a copy that
        /// shares the log's chunks, encoded on the storage thread
        /// (`file`), not on the daemon's queue at every compaction.
        let log: EntryLog
        /// About the bytes of its file, for `isLarge`.
        let size: Int
        let lastID: UInt64
        let lastNumber: UInt64

        /// The entries file that replaces the session's.
        var file: [UInt8] { EntryFile.encode((0..<log.count).lazy.map { log[$0] }, epoch: epoch) }
    }

    var isEmpty: Bool {
        entries.isEmpty && replacements.isEmpty && epochChanges.isEmpty && newEvents.isEmpty && eventsFile == nil
    }

    /// Past this many bytes the outbox is written without waiting for the
    /// end of `sync_interval`, so that a long interval with fast typing
    /// cannot grow it without bound.
    static let largeSize = 16 << 20
    var isLarge: Bool { entries.count + replacementBytes > Self.largeSize }

    mutating func append(_ entry: Entry, session: SessionName, epoch: UInt64) {
        entries.append(entry, session: session, epoch: epoch)
    }

    /// A newer file of the same session and epoch takes the place of one
    /// still waiting: it holds every entry the older one kept that
    /// retention kept, and the writer would only have overwritten it. A
    /// session compacting at every flat-out batch so costs one file a
    /// sync, not one a batch (which piled up while each sync wrote them all).
    mutating func replace(_ name: SessionName, epoch: UInt64, with log: EntryLog, newest: Entry) {
        // Every retained text is about as long as the newest (the monkeys
        // seldom change), and a record's framing is a few bytes.
        let size = log.count * (newest.text.utf8.count + 16)
        let replacement = Replacement(
            name: name, epoch: epoch, log: log, size: size, lastID: newest.id, lastNumber: newest.number)
        replacementBytes += size
        if let index = replacementIndex[name], replacements[index].epoch == epoch {
            replacementBytes -= replacements[index].size
            replacements[index] = replacement
        } else {
            replacementIndex[name] = replacements.count
            replacements.append(replacement)
        }
    }

    /// The session's epoch changed or it is gone. What it typed before
    /// stays in the batch, to be skipped by its epoch when the journal is
    /// folded: taking it out would cost a pass over the batch per CLEAR.
    mutating func changeEpoch(of name: SessionName, to epoch: UInt64?) {
        // Not a subscript assignment, which would remove the key for nil.
        epochChanges.updateValue(epoch, forKey: name)
    }
}
