import MonkeyCore
import MonkeyShell

/// The entries journal: appended at each sync (`FileWriter.write`, an
/// `AppendOnlyFile`), folded into the sessions' entries files when it
/// grows large, at start-up and at a clean shutdown.
extension FileWriter {
    /// Appends every record of the journal to its session's entries file,
    /// then removes the journal; in bounded pieces (`FileWriter+Fold.swift`).
    func foldJournal() throws(StorageError) {
        try foldJournalInPieces()
    }

    func readJournal() throws(StorageError) -> JournalContents {
        do {
            guard let bytes = try Syscalls.readWholeFile(journalPath, limit: Int.max) else { return JournalContents() }
            return JournalFile.decode(bytes)
        } catch {
            throw StorageError("cannot read the entries journal \(journalPath): \(error.reason)")
        }
    }

    /// Appends to each session's entries file the journal's entries it
    /// does not hold yet (see `unfolded`: a fold a crash interrupted is
    /// simply done again), writing afresh the files of sessions whose epoch
    /// changed, and syncs them.
    func fold(_ unfolded: [SessionName: [Entry]]) throws(StorageError) {
        var failure: StorageError?
        var wrote = false
        var created = false
        for (name, entries) in unfolded {
            guard let files = sessions[name], let newest = entries.last else { continue }
            do {
                if files.isCurrent {
                    // Not synced one by one: one `syncfs` below for all of them.
                    let path = entriesPath(name)
                    try AppendOnlyFile.append(
                        EntryFile.records(entries), sync: false, at: path, label: path, end: &files.end)
                } else {
                    try replaceEntriesFile(files, of: name, with: EntryFile.encode(entries, epoch: files.epoch))
                    files.isCurrent = true
                    created = true
                }
                files.lastID = newest.id
                files.lastNumber = newest.number
                wrote = true
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        if wrote { try syncFileSystem() }
        if created { try syncDirectory() }
    }

    /// The journal's entries that their sessions' entries files do not hold.
    func unfolded(_ contents: JournalContents) -> [SessionName: [Entry]] {
        var unfolded: [SessionName: [Entry]] = [:]
        for name in sessions.keys {
            let entries = self.unfolded(contents, of: name)
            if !entries.isEmpty { unfolded[name] = entries }
        }
        return unfolded
    }

    /// The journal's entries of one session's current epoch that its
    /// entries file does not hold, up to any that does not follow the one
    /// before it (which the entries file could not take).
    func unfolded(_ contents: JournalContents, of name: SessionName) -> [Entry] {
        guard let files = sessions[name], let entries = contents.entries[SessionEpoch(name, files.epoch)] else {
            return []
        }
        let (lastID, lastNumber) = files.isCurrent ? (files.lastID, files.lastNumber) : (0, 0)
        guard let start = entries.firstIndex(where: { $0.id > lastID && $0.number > lastNumber }) else { return [] }
        var end = start + 1
        while end < entries.count && entries[end].id > entries[end - 1].id
            && entries[end].number > entries[end - 1].number
        {
            end += 1
        }
        // Usually all of them: then the decoded array is shared, not copied, so a fold holds one copy.
        return end - start == entries.count ? entries : Array(entries[start..<end])
    }

    /// Removes the folded journal; every session's records are in its
    /// entries file now.
    func removeJournal() throws(StorageError) {
        do {
            try Syscalls.removeFile(journalPath)
        } catch {
            throw StorageError("cannot remove the folded entries journal \(journalPath): \(error.reason)")
        }
        try syncDirectory()
        journal.forget()
        isFoldFailing = false
        syncsBeforeFoldRetry = 0
    }

    /// At start-up, before the sessions' files are read: the journal, its
    /// torn tail (if any) reported.
    func readJournalAtStart(report: (LogPriority, String) -> Void) -> JournalContents {
        let contents: JournalContents
        do {
            contents = try readJournal()
        } catch {
            report(.error, "\(error.message); typing since the last fold may be missing")
            return JournalContents()
        }
        if let damage = contents.damage {
            report(
                .warning,
                "the entries journal \(journalPath): \(damage); cut it there, keeping the records before it")
        }
        return contents
    }

    /// At start-up, once the sessions are loaded with the journal's entries
    /// their files lack (`unfolded`, as loading found them): folds those,
    /// what was typed since the last fold, up to a crash. If folding fails,
    /// the journal is kept, its torn tail cut at the next append, for a
    /// later fold. A journal of an earlier release (format version 3 or
    /// before) must be folded: records of this one cannot follow its records.
    func foldJournalAtStart(
        _ contents: JournalContents, unfolded: [SessionName: [Entry]], report: (LogPriority, String) -> Void
    ) throws(StorageError) {
        guard contents.validLength > 0 || contents.damage != nil else { return }
        do {
            try fold(unfolded)
            try removeJournal()
            if !unfolded.isEmpty {
                let count = unfolded.values.reduce(0) { $0 + $1.count }
                report(.notice, "folded \(count) entries of \(unfolded.count) sessions from the entries journal")
            }
        } catch {
            if contents.version < JournalFile.version && contents.validLength >= JournalFile.header.count {
                throw StorageError("cannot fold the entries journal of an earlier release: \(error.message)")
            }
            // Appends follow its good records (or start it afresh if not
            // even its header was good).
            journal.resume(at: contents.validLength < JournalFile.header.count ? 0 : contents.validLength)
            report(.error, "cannot fold the entries journal yet: \(error.message)")
        }
    }
}
