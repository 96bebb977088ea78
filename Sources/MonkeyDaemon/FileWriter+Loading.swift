import MonkeyCore
import MonkeyShell

/// Start-up: every session back from its files, torn tails cut, damaged
/// sessions set aside without stopping the others.
extension FileWriter {
    /// Loads every session in the directory, keeping `retention` entries
    /// each, with the number of records in its entries file, and folds the
    /// journal into them. Only an unreadable directory is an error; a
    /// damaged session is reported and skipped.
    func load(retention: Int, report: (LogPriority, String) -> Void) throws(StorageError)
        -> [(session: Session, recordCount: Int)]
    {
        let names: [String]
        do {
            names = try Syscalls.directoryEntries(directory)
        } catch {
            throw StorageError("cannot read the state directory \(directory): \(error.reason)")
        }
        let journal = readJournalAtStart(report: report)
        var loaded: [(session: Session, recordCount: Int)] = []
        var unfolded: [SessionName: [Entry]] = [:]
        var stateNames = Set<String>()
        var buffer: [UInt8] = []
        for file in names.sorted() {
            if file.hasSuffix(".tmp") {
                // A write a crash interrupted: the file it was to replace is intact.
                _ = try? Syscalls.removeFile("\(directory)/\(file)")
                continue
            }
            guard file.hasSuffix(".state") else { continue }
            let stem = String(file.dropLast(".state".count))
            stateNames.insert(stem)
            guard let name = SessionName(stem) else {
                report(.warning, "ignoring \(directory)/\(file): '\(stem)' is not a valid session name")
                continue
            }
            do {
                let (session, recordCount, fromJournal) = try loadSession(
                    name, retention: retention, journal: journal, buffer: &buffer, report: report)
                loaded.append((session, recordCount))
                if !fromJournal.isEmpty { unfolded[name] = fromJournal }
            } catch {
                setAside(name, because: error.message, report: report)
            }
        }
        for file in names where file.hasSuffix(".entries") {
            let stem = String(file.dropLast(".entries".count))
            guard !stateNames.contains(stem) else { continue }
            // A DELETE that a crash interrupted after removing the state file.
            _ = try? Syscalls.removeFile("\(directory)/\(file)")
            report(.notice, "removed \(directory)/\(file), left over from a deleted session")
        }
        foldJournalAtStart(journal, unfolded: unfolded, report: report)
        return loaded
    }

    /// Sessions that type again need ids reserved before their first tick:
    /// done for all of them in one batch rather than one by one, each with
    /// its own syncs, on the first ticks. Returns why it failed, if it did.
    func reserveAhead(_ snapshots: [SessionSnapshot], ahead: (SessionSnapshot) -> UInt64) -> String? {
        var states: [(SessionFiles, StoredSession)] = []
        do {
            for snapshot in snapshots {
                guard let files = sessions[snapshot.name] else { continue }
                let stored = StoredSession.reserving(
                    snapshot, ahead: ahead(snapshot), current: files.written.reservedID)
                try writeTemporaryState(stored, syncing: false)
                states.append((files, stored))
            }
            guard !states.isEmpty else { return nil }
            try syncFileSystem()
            for (files, stored) in states {
                try installTemporaryState(stored.snapshot.name)
                files.written = stored
            }
            try syncDirectory()
        } catch {
            // The first ticks reserve one by one, as they would have anyway.
            for (_, stored) in states { discardTemporaryState(stored.snapshot.name) }
            return error.message
        }
        return nil
    }

    /// Loads one session from its files, with the entries of the journal
    /// that its entries file does not hold yet.
    private func loadSession(
        _ name: SessionName, retention: Int, journal: JournalContents, buffer: inout [UInt8],
        report: (LogPriority, String) -> Void
    ) throws(StorageError) -> (session: Session, recordCount: Int, fromJournal: [Entry]) {
        let stored: StoredSession
        do {
            guard let bytes = try Syscalls.readWholeFile(statePath(name), limit: 16 << 20) else {
                throw StorageError("its state file disappeared")
            }
            stored = try StateFile.decode(bytes, name: name)
        } catch let error as SystemError {
            throw StorageError("cannot read \(statePath(name)): \(error.reason)")
        } catch let error as StateFile.Problem {
            throw StorageError("\(statePath(name)) is damaged: \(error)")
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError("\(error)")
        }
        let path = entriesPath(name)
        let fileLength: Int
        do {
            fileLength = try Syscalls.readWholeFile(path, into: &buffer, limit: Int.max) ?? 0
        } catch {
            throw StorageError("cannot read \(path): \(error.reason)")
        }
        let contents = buffer.withUnsafeBytes { raw in
            EntryFile.decode(
                UnsafeRawBufferPointer(rebasing: raw[..<fileLength]), keepingLast: retention,
                keepingFromID: stored.snapshot.nextID)
        }
        var length = contents.validLength
        if contents.damage != nil || fileLength < EntryFile.header.count {
            length = try cutEntriesFile(name, contents, fileLength: fileLength, report: report)
        }
        // The newest good record is always among the entries kept.
        let newest = contents.entries.last
        sessions[name] = SessionFiles(
            written: stored, length: length, lastID: newest?.id ?? 0, lastNumber: newest?.number ?? 0)
        let fromJournal = unfolded(journal, of: name)
        let entries = fromJournal.isEmpty ? contents.entries : contents.entries + fromJournal
        let session = stored.restoredSession(entries: entries, retention: retention)
        return (session, contents.recordCount + fromJournal.count, fromJournal)
    }

    /// Cuts a torn or corrupt tail (or writes a missing header); reported once.
    private func cutEntriesFile(
        _ name: SessionName, _ contents: EntryFileContents, fileLength: Int, report: (LogPriority, String) -> Void
    ) throws(StorageError) -> Int {
        let path = entriesPath(name)
        do {
            let fd = try Syscalls.open(path, .writeCreating)
            defer { Syscalls.close(fd) }
            if contents.validLength < EntryFile.header.count {
                try Syscalls.truncate(fd, to: 0)
                try Syscalls.write(fd, EntryFile.header, at: 0)
            } else {
                try Syscalls.truncate(fd, to: contents.validLength)
            }
            try Syscalls.synchronizeData(fd)
        } catch {
            throw StorageError("cannot repair \(path): \(error.reason)")
        }
        if let damage = contents.damage {
            report(
                .warning,
                "session \(name): \(damage) in \(path); cut the file there, dropping \(fileLength - contents.validLength)"
                    + " bytes and keeping \(contents.recordCount) records")
        }
        return max(contents.validLength, EntryFile.header.count)
    }

    /// Moves a session's files aside so that it neither loads nor blocks a
    /// new session of the same name; the operator can inspect them.
    private func setAside(_ name: SessionName, because reason: String, report: (LogPriority, String) -> Void) {
        var moved: [String] = []
        for path in [statePath(name), entriesPath(name)] {
            if (try? Syscalls.rename(path, to: path + ".damaged")) != nil { moved.append(path + ".damaged") }
        }
        report(
            .error,
            "session \(name) could not be loaded: \(reason); "
                + (moved.isEmpty
                    ? "its files were left in place" : "moved its files to \(moved.joined(separator: ", "))"))
    }
}
