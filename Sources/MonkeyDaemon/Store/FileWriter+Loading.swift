import MonkeyCore
import MonkeyShell

/// Start-up: every session back from the snapshot and the control log, its
/// entries from its file and the journal; torn tails cut, damage reported
/// and set aside without stopping the others.
extension FileWriter {
    /// What start-up found.
    struct Loaded {
        var sessions: [(session: Session, stored: StoredSession, recordsInFile: Int)] = []
        var nextEpoch: UInt64 = 1
        /// The control log segment to append to, and its good length.
        var segment: UInt64 = 1
        var segmentLength = ControlFile.preambleLength
        var snapshotBytes = 0
        /// The events file's events, and the event ids reserved.
        var events: [EventRecord] = []
        var eventsReservedID: UInt64 = 1
    }

    /// Loads every session, keeping `retention` entries each, and folds
    /// the journal into their files. A state directory of the first release
    /// (a state file per session) is upgraded on the way. Only an
    /// unreadable directory is an error; damage is reported and skipped.
    func load(retention: Int, report: (LogPriority, String) -> Void) throws(StorageError) -> Loaded {
        var names: [String]
        do {
            names = try Syscalls.directoryEntries(directory)
        } catch {
            throw StorageError("cannot read the state directory \(directory): \(error.reason)")
        }
        for file in names where file.hasSuffix(".tmp") {
            // A write a crash interrupted: the file it was to replace is intact.
            _ = try? Syscalls.removeFile("\(directory)/\(file)")
        }
        names.removeAll { $0.hasSuffix(".tmp") }
        var loaded = Loaded()
        var (state, covered, isDamaged, isUpgrade) = try readState(names, report: report)
        let segments = names.compactMap(ControlLog.segment(ofFile:)).sorted()
        var lastSegment: (number: UInt64, length: Int)?
        for (index, segment) in segments.enumerated() {
            guard segment > covered else {
                // Held by the snapshot: a removal a crash interrupted.
                removeSegments(through: segment)
                continue
            }
            let replayed = replaySegment(segment, into: &state, isLast: index == segments.count - 1, report: report)
            isDamaged = isDamaged || replayed.isDamaged
            lastSegment = (segment, replayed.length)
        }
        // In pieces if it can be; else `readJournalAtStart` reads it whole.
        _ = isUpgrade ? false : foldJournalBeforeLoading(state, report: report)
        let journal = readJournalAtStart(report: report)
        var unfolded: [SessionName: [Entry]] = [:]
        var buffer: [UInt8] = []
        var rewroteFiles = false
        for name in state.sessions.keys.sorted() {
            guard let stored = state.sessions[name] else { continue }
            do {
                let (session, recordCount, fromJournal) = try loadSession(
                    stored, retention: retention, journal: journal, buffer: &buffer, rewroteFiles: &rewroteFiles,
                    report: report)
                loaded.sessions.append((session, stored, recordCount))
                if !fromJournal.isEmpty { unfolded[name] = fromJournal }
            } catch {
                // The session goes on without its entries, its ids past them;
                // the file is kept for the operator. If it cannot even be set
                // aside, starting would lose it at the next compaction.
                let path = entriesPath(name)
                do {
                    try AppendOnlyFile.setAside(path, suffix: ".unreadable")
                } catch let renaming {
                    throw StorageError(
                        "session \(name) cannot be loaded: \(error.message), nor can the file be set aside:"
                            + " \(renaming.reason)")
                }
                report(
                    .error,
                    "session \(name): \(error.message); moved the file to \(path).unreadable, the session goes on"
                        + " without its entries")
                let (session, recordCount, fromJournal) = try loadSession(
                    stored, retention: retention, journal: journal, buffer: &buffer, rewroteFiles: &rewroteFiles,
                    report: report)
                loaded.sessions.append((session, stored, recordCount))
                if !fromJournal.isEmpty { unfolded[name] = fromJournal }
            }
        }
        if rewroteFiles { try syncDirectory() }
        removeEntriesFilesOfNoSession(names, state: state, isDamaged: isDamaged, report: report)
        try foldJournalAtStart(journal, unfolded: unfolded, report: report)
        loaded.nextEpoch = state.nextEpoch
        loaded.eventsReservedID = state.eventsReservedID
        loaded.events = readEvents(report: report)
        if isUpgrade || isDamaged || lastSegment == nil {
            // A snapshot of what was read: the next start reads it cleanly
            // (after an upgrade, without the state files of the first release).
            let through = lastSegment?.number ?? covered
            loaded.snapshotBytes = try writeSnapshot(state, segment: through)
            if isUpgrade { removeStateFilesOfTheFirstRelease(names, report: report) }
            try ControlLog.create(directory, segment: through + 1)
            loaded.segment = through + 1
        } else if let lastSegment {
            loaded.segment = lastSegment.number
            loaded.segmentLength = lastSegment.length
        }
        return loaded
    }

    /// The events file's events, its torn or damaged tail cut.
    private func readEvents(report: (LogPriority, String) -> Void) -> [EventRecord] {
        let bytes: [UInt8]
        do {
            guard let read = try Syscalls.readWholeFile(eventsPath, limit: Int.max) else { return [] }
            bytes = read
        } catch {
            report(.error, "cannot read \(eventsPath): \(error.reason); the stream's earlier events are missing")
            return []
        }
        let contents = EventFile.decode(bytes)
        let length = contents.validLength < EventFile.header.count ? 0 : contents.validLength
        events.setLength(length)
        eventsThroughID = contents.events.last?.id ?? 0
        if let damage = contents.damage {
            report(.warning, "\(eventsPath): \(damage); cut it there, keeping \(contents.events.count) events")
            do {
                try events.cut(to: length)
            } catch {
                report(.error, "cannot cut \(eventsPath): \(error.reason)")
            }
        }
        return contents.events
    }

    /// The state the snapshot holds (or, in a directory of the first
    /// release, its state files), and the last segment it holds.
    private func readState(_ names: [String], report: (LogPriority, String) -> Void) throws(StorageError)
        -> (state: ControlState, covered: UInt64, isDamaged: Bool, isUpgrade: Bool)
    {
        let hasStateFiles = names.contains { $0.hasSuffix(".state") }
        guard names.contains("snapshot") else {
            guard hasStateFiles else { return (ControlState(), 0, false, false) }
            report(.notice, "upgrading \(directory) from the state files of the first release")
            return (readStateFilesOfTheFirstRelease(names, report: report), 0, false, true)
        }
        if hasStateFiles { removeStateFilesOfTheFirstRelease(names, report: report) }
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readWholeFile(snapshotPath, limit: Int.max) ?? []
        } catch {
            throw StorageError("cannot read \(snapshotPath): \(error.reason)")
        }
        let contents = ControlFile.decodeSnapshotLeniently(bytes)
        guard let problem = contents.problem else { return (contents.state, contents.segment, false, false) }
        let aside = snapshotPath + ".damaged"
        _ = try? AppendOnlyFile.setAside(snapshotPath, suffix: ".damaged")
        report(
            .error,
            "\(snapshotPath) is damaged: \(problem); kept the \(contents.state.sessions.count) sessions it could "
                + "read and moved it to \(aside)")
        return (contents.state, contents.segment, true, false)
    }

    /// Applies one log segment; cuts a torn tail of the last one. Returns
    /// its good length and whether records were lost to damage.
    private func replaySegment(
        _ segment: UInt64, into state: inout ControlState, isLast: Bool, report: (LogPriority, String) -> Void
    ) -> (length: Int, isDamaged: Bool) {
        let path = ControlLog.path(directory, segment: segment)
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readWholeFile(path, limit: Int.max) ?? []
        } catch {
            report(.error, "cannot read \(path): \(error.reason); the changes it holds are missing")
            return (0, true)
        }
        let contents = ControlFile.decodeLog(bytes)
        for record in contents.records { state.apply(record) }
        guard let damage = contents.damage else { return (contents.validLength, false) }
        guard isLast else {
            report(
                .error,
                "\(path): \(damage); the changes after byte \(contents.validLength) of this segment are missing")
            return (contents.validLength, true)
        }
        // A torn last write: the change it held was never acknowledged.
        let length = max(contents.validLength, ControlFile.preambleLength)
        var file = AppendOnlyFile(
            path: path, label: path, header: ControlFile.preamble(ControlFile.logHeader, segment: segment),
            length: 0)
        do {
            try file.cut(to: contents.validLength)
        } catch {
            report(.error, "cannot cut \(path): \(error.reason)")
        }
        report(.warning, "\(path): \(damage); cut it there (\(bytes.count - contents.validLength) bytes)")
        return (length, false)
    }

    /// Loads one session's entries: those of its epoch in its entries file
    /// and, after them, in the journal.
    private func loadSession(
        _ stored: StoredSession, retention: Int, journal: JournalContents, buffer: inout [UInt8],
        rewroteFiles: inout Bool, report: (LogPriority, String) -> Void
    ) throws(StorageError) -> (session: Session, recordCount: Int, fromJournal: [Entry]) {
        let name = stored.snapshot.name
        let epoch = stored.snapshot.epoch
        let path = entriesPath(name)
        let fileLength: Int?
        do {
            fileLength = try Syscalls.readWholeFile(path, into: &buffer, limit: Int.max)
        } catch {
            throw StorageError("cannot read \(path): \(error.reason)")
        }
        var files = SessionFiles.fresh(epoch: epoch)
        var fileEntries: [Entry] = []
        var recordCount = 0
        if let fileLength {
            let contents = buffer.withUnsafeBytes { raw in
                EntryFile.decode(
                    UnsafeRawBufferPointer(rebasing: raw[..<fileLength]), keepingLast: retention,
                    keepingFromID: stored.snapshot.nextID)
            }
            let hasPreamble = contents.validLength >= contents.preambleLength
            if hasPreamble && contents.epoch == epoch {
                // The newest good record is always among the entries kept.
                let newest = contents.entries.last
                files = SessionFiles(
                    epoch: epoch, isCurrent: true, length: contents.validLength, lastID: newest?.id ?? 0,
                    lastNumber: newest?.number ?? 0)
                fileEntries = contents.entries
                recordCount = contents.recordCount
                if contents.version != EntryFile.header.last {
                    try upgradeEntriesFile(files, of: name, contents, report: report)
                    rewroteFiles = true
                    recordCount = fileEntries.count
                } else if contents.damage != nil {
                    try cutEntriesFile(files, of: name, contents, fileLength: fileLength, report: report)
                }
            }
        }
        sessions[name] = files
        let fromJournal = unfolded(journal, of: name)
        let entries = fromJournal.isEmpty ? fileEntries : fileEntries + fromJournal
        return (
            stored.restoredSession(entries: entries, retention: retention), recordCount + fromJournal.count, fromJournal
        )
    }

    /// Writes an entries file of an earlier format afresh in this one
    /// (`EntryFile`), holding the entries the session keeps, so that folds
    /// append runs to it; damage found in it is reported once.
    private func upgradeEntriesFile(
        _ files: SessionFiles, of name: SessionName, _ contents: EntryFileContents,
        report: (LogPriority, String) -> Void
    ) throws(StorageError) {
        try replaceEntriesFile(files, of: name, with: EntryFile.encode(contents.entries, epoch: files.epoch))
        if let damage = contents.damage {
            let path = entriesPath(name)
            report(
                .warning,
                "session \(name): \(damage) in \(path); kept the \(contents.recordCount) entries before it")
        }
    }

    /// Cuts a torn or corrupt tail; reported once.
    private func cutEntriesFile(
        _ files: SessionFiles, of name: SessionName, _ contents: EntryFileContents, fileLength: Int,
        report: (LogPriority, String) -> Void
    ) throws(StorageError) {
        let path = entriesPath(name)
        do {
            try AppendOnlyFile.cut(at: path, to: contents.validLength, end: &files.end)
        } catch {
            throw StorageError("cannot repair \(path): \(error.reason)")
        }
        if let damage = contents.damage {
            report(
                .warning,
                "session \(name): \(damage) in \(path); cut the file there, dropping \(fileLength - contents.validLength)"
                    + " bytes and keeping \(contents.recordCount) records")
        }
    }

    /// Entries files of sessions that are gone (a DELETE) are removed; when
    /// the state was damaged they may be a lost session's, and are set aside.
    private func removeEntriesFilesOfNoSession(
        _ names: [String], state: ControlState, isDamaged: Bool, report: (LogPriority, String) -> Void
    ) {
        for file in names where file.hasSuffix(".entries") {
            let stem = String(file.dropLast(".entries".count))
            if let name = SessionName(stem), state.sessions[name] != nil { continue }
            let path = "\(directory)/\(file)"
            if isDamaged {
                _ = try? AppendOnlyFile.setAside(path, suffix: ".damaged")
                report(.warning, "moved \(path) to \(path).damaged: no session holds it after the damage")
            } else {
                _ = try? Syscalls.removeFile(path)
            }
        }
    }
}
