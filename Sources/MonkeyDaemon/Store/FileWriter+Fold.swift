internal import CPrefetch
import MonkeyCore
import MonkeyShell

/// The fold of the entries journal in bounded pieces, while the daemon
/// runs and at start-up before loading: the journal is read a chunk at a time (`JournalFold.chunkLength`,
/// more only for a longer record), each session's entries it takes are
/// copied as they lie into runs of its entries file (`EntryFile`) and
/// appended to the file once all sessions together hold
/// `JournalFold.pendingLimit` bytes. What a fold
/// takes and its crash safety are those of `fold(_:)`: the entries of the
/// session's current epoch its file does not hold, up to one that does not
/// follow the one before; the files synced with one `syncfs`, and only then
/// the journal removed.
extension FileWriter {
    /// Folds the journal in bounded pieces; a journal of another format
    /// version, or holding a record only `JournalFile.decode` reads, is
    /// folded whole (a fold done twice appends nothing twice).
    func foldJournalInPieces() throws(StorageError) {
        var pieces = JournalFold(sessions: sessions.count)
        let outcome: JournalFold.Outcome
        do {
            outcome = try pieces.run(self)
        } catch {
            throw StorageError("cannot read the entries journal \(journalPath): \(error.reason)")
        }
        // Without it the heap keeps the fold's pages (see BENCHMARKS.md):
        // given back as soon as the records are written, not after the
        // sync, so that the journal is never gone with them still held.
        Syscalls.returnFreedMemory()
        var failure = pieces.failure
        do {
            if pieces.wrote { try syncFileSystem() }
            if pieces.created { try syncDirectory() }
        } catch {
            failure = failure ?? error
        }
        if let failure { throw failure }
        if outcome == .needsWholeRead {
            try fold(unfolded(readJournal()))
            Syscalls.returnFreedMemory()
        }
        try removeJournal()
    }
}

extension FileWriter {
    /// At start-up, before the sessions are loaded: folds a journal of this
    /// release in pieces into the entries files of `state`'s sessions, so
    /// that loading finds every entry there and no journal to read whole.
    /// Returns false when the journal is to be read whole as before: one
    /// of another version or holding a record only `decode` reads, an
    /// entries file that is damaged or cannot be read, a fold that fails.
    /// What it appended then is in the files, and not appended again.
    func foldJournalBeforeLoading(_ state: ControlState, report: (LogPriority, String) -> Void) -> Bool {
        guard Syscalls.exists(journalPath) else { return true }
        defer { sessions = [:] }
        var buffer: [UInt8] = []
        for (name, stored) in state.sessions {
            guard let files = filesOnDisk(name, epoch: stored.snapshot.epoch, buffer: &buffer) else { return false }
            sessions[name] = files
        }
        buffer = []
        var pieces = JournalFold(sessions: sessions.count)
        guard (try? pieces.run(self)) == .folded, pieces.failure == nil else { return false }
        do {
            if pieces.wrote { try syncFileSystem() }
            if pieces.created { try syncDirectory() }
            try removeJournal()
        } catch {
            return false
        }
        if let damage = pieces.damage {
            report(
                .warning,
                "the entries journal \(journalPath): \(damage); cut it there, keeping the records before it")
        }
        let taking = pieces.sessions.filter { $0.taken > 0 }
        if !taking.isEmpty {
            let count = taking.reduce(0) { $0 + $1.taken }
            report(.notice, "folded \(count) entries of \(taking.count) sessions from the entries journal")
        }
        return true
    }

    /// What the session's entries file holds, read as loading reads it; nil
    /// if it cannot be read or is damaged (loading then repairs it).
    private func filesOnDisk(_ name: SessionName, epoch: UInt64, buffer: inout [UInt8]) -> SessionFiles? {
        guard let length = try? Syscalls.readWholeFile(entriesPath(name), into: &buffer, limit: Int.max) else {
            return Syscalls.exists(entriesPath(name)) ? nil : .fresh(epoch: epoch)
        }
        let contents = buffer.withUnsafeBytes { raw in
            EntryFile.decode(UnsafeRawBufferPointer(rebasing: raw[..<length]), keepingLast: 1)
        }
        // A damaged file, or one of an earlier format, is loading's to handle.
        guard contents.damage == nil, length == 0 || contents.version == EntryFile.header.last else { return nil }
        guard contents.validLength >= contents.preambleLength, contents.epoch == epoch else {
            return .fresh(epoch: epoch)
        }
        let newest = contents.entries.last
        return SessionFiles(
            epoch: epoch, isCurrent: true, length: contents.validLength, lastID: newest?.id ?? 0,
            lastNumber: newest?.number ?? 0)
    }
}

/// One fold's progress: what each session takes, and the records waiting
/// to be appended.
struct JournalFold {
    /// Bytes of the journal read at a time (more only for a longer record).
    let chunkLength: Int
    /// Past this many bytes of records waiting, they are appended.
    let pendingLimit: Int

    init(chunkLength: Int = 1 << 20, pendingLimit: Int = 4 << 20) {
        self.chunkLength = chunkLength
        self.pendingLimit = pendingLimit
    }

    /// A fold of the journal of `sessions` sessions' files.
    init(sessions: Int) {
        self.init(pendingLimit: Self.pendingLimit(sessions: sessions))
    }

    /// 4 MiB, or 8 KiB a session when that is more: each time the records
    /// waiting are appended, every session with records opens its file and
    /// writes it, so that with 10,000 sessions typing a fold of 4 MiB
    /// pieces opened 240,000 files and took twice the CPU, and one of 4 KiB
    /// a session still wrote each file twice (a third of a fold was those
    /// writes). 8 KiB a session is more than a journal of the default
    /// size holds of each of 10,000 sessions, and a fraction of what a
    /// session typing that much holds in its log.
    static func pendingLimit(sessions: Int) -> Int {
        max(4 << 20, sessions * 8192)
    }

    enum Outcome: Equatable {
        case folded
        /// Not a journal this fold reads: fold it whole.
        case needsWholeRead
    }

    /// What one session takes from the journal. A value held in place in
    /// `numbered`: as a class, retaining it for each entry cost a tenth of
    /// the fold.
    struct Taking {
        let name: SessionName
        let files: FileWriter.SessionFiles
        let epoch: UInt64
        /// The newest entry taken, or the file's newest before any is.
        var lastID: UInt64
        var lastNumber: UInt64
        var hasStarted = false
        /// An entry did not follow the one before: the rest is not taken.
        var isDone = false
        /// Records taken, not appended yet.
        var pending = PendingRecords()
        /// The newest entry in `pending`.
        var pendingLastID: UInt64 = 0
        var pendingLastNumber: UInt64 = 0
        /// Entries taken in all.
        var taken = 0

        init(_ name: SessionName, _ files: FileWriter.SessionFiles) {
            self.name = name
            self.files = files
            epoch = files.epoch
            (lastID, lastNumber) = files.isCurrent ? (files.lastID, files.lastNumber) : (0, 0)
        }

        /// Takes the group's entries that are the session's next (see
        /// `FileWriter.unfolded(_:of:)`): from the first that follows the
        /// newest taken (or the file's newest) up to one that does not
        /// follow the one before, copied together; returns the bytes it
        /// added to the session's runs.
        mutating func take(_ group: JournalGroupItem, firstCapacity: Int) -> Int {
            guard !isDone, group.epoch == epoch else { return 0 }
            // Most often all of them, known without reading them again.
            if group.isIncreasing && group.first.id > lastID && group.first.number > lastNumber {
                hasStarted = true
                taken += group.count
                (lastID, lastNumber) = group.last
                return append(group, from: 0, to: group.entries.count, firstCapacity: firstCapacity)
            }
            var start: Int?
            var offset = 0
            var end = 0
            for _ in 0..<group.count {
                let entry = group.entry(at: offset)
                guard entry.id > lastID && entry.number > lastNumber else {
                    if hasStarted {
                        isDone = true
                        break
                    }
                    offset = entry.end
                    continue
                }
                hasStarted = true
                if start == nil { start = offset }
                taken += 1
                lastID = entry.id
                lastNumber = entry.number
                offset = entry.end
                end = offset
            }
            guard let start else { return 0 }
            return append(group, from: start, to: end, firstCapacity: firstCapacity)
        }

        /// Adds the group's entries from `start` to `end` (offsets in its
        /// `entries`, the session's newest last) to the runs.
        private mutating func append(_ group: JournalGroupItem, from start: Int, to end: Int, firstCapacity: Int) -> Int
        {
            pendingLastID = lastID
            pendingLastNumber = lastNumber
            if pending.fitsOpenRun(end - start) {
                return pending.append(
                    UnsafeRawBufferPointer(rebasing: group.entries[start..<end]), firstCapacity: firstCapacity)
            }
            // One at a time: the run ends as soon as it reaches its limit.
            var added = 0
            var offset = start
            while offset < end {
                let entryEnd = group.entry(at: offset).end
                added += pending.append(
                    UnsafeRawBufferPointer(rebasing: group.entries[offset..<entryEnd]), firstCapacity: firstCapacity)
                offset = entryEnd
            }
            return added
        }
    }

    /// One session's runs waiting to be appended, in memory the fold
    /// owns and frees (`JournalFold.run`), not an array: with 10,000
    /// sessions every entry goes to another session's runs, and an
    /// array's header (its count, read before the bytes are written, and
    /// its uniqueness check) was a cache miss per entry, a fifth of a fold.
    /// Each entry is copied as the journal holds it; a run is sealed (one
    /// checksum) when it is full or its records are appended.
    struct PendingRecords {
        private var start: UnsafeMutableRawPointer?
        private(set) var count = 0
        private(set) var capacity = 0
        /// Where the run being filled starts (its header), if there is one.
        private var openRun: Int?

        var isEmpty: Bool { count == 0 }

        /// The sealed runs, valid until the next change.
        var bytes: UnsafeRawBufferPointer {
            precondition(openRun == nil, "runs are sealed before they are read")
            return UnsafeRawBufferPointer(start: start, count: count)
        }

        /// Starts bringing into the caches the line the next append writes.
        /// Mutating only so that it is reached in place, never on a copy.
        mutating func prefetchTail() {
            if let start { monkey_prefetch_for_writing(start + count) }
        }

        /// Whether `length` bytes of entries keep the open run (or a new
        /// one) below its limit: appended together, they end it where one
        /// at a time would.
        func fitsOpenRun(_ length: Int) -> Bool {
            (openRun.map { count - $0 - EntryFile.runHeaderLength } ?? 0) + length < EntryFile.runLimit
        }

        /// Adds `bytes`, whole entries as a run holds them, to the open run
        /// (a new one when there is none or it is full); returns the bytes
        /// added.
        mutating func append(_ bytes: UnsafeRawBufferPointer, firstCapacity: Int) -> Int {
            var added = bytes.count
            if let run = openRun, count - run - EntryFile.runHeaderLength >= EntryFile.runLimit { seal() }
            if openRun == nil {
                openRun = count
                _ = room(for: EntryFile.runHeaderLength, firstCapacity: firstCapacity)
                added += EntryFile.runHeaderLength
            }
            room(for: bytes.count, firstCapacity: firstCapacity).copyMemory(
                from: bytes.baseAddress.unsafelyUnwrapped, byteCount: bytes.count)
            return added
        }

        /// Seals the open run, if there is one.
        mutating func seal() {
            guard let run = openRun, let start else { return }
            EntryFile.seal(run: UnsafeMutableRawBufferPointer(start: start + run, count: count - run))
            openRun = nil
        }

        /// Where the next `length` bytes go, now counted: room for them is
        /// made first (`firstCapacity` bytes, or twice what is held).
        private mutating func room(for length: Int, firstCapacity: Int) -> UnsafeMutableRawPointer {
            if count + length > capacity { grow(to: max(count + length, capacity * 2, firstCapacity)) }
            guard let start else { preconditionFailure("room was just made") }
            defer { count += length }
            return start + count
        }

        private mutating func grow(to newCapacity: Int) {
            let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
            if let start {
                grown.copyMemory(from: start, byteCount: count)
                start.deallocate()
            }
            start = grown
            capacity = newCapacity
        }

        /// Empties it, keeping its memory for the session's records of the
        /// next round if it is no more than `kept` bytes: freed, it went
        /// back to the system and was faulted in afresh, page by page, in
        /// every round. Larger memory is freed, so that what a fold keeps
        /// between rounds is at most its sessions' first capacities.
        mutating func removeAll(keepingUpTo kept: Int) {
            guard capacity <= kept else { return free() }
            count = 0
            openRun = nil
        }

        /// Gives the memory back: the fold ended.
        mutating func free() {
            start?.deallocate()
            start = nil
            count = 0
            capacity = 0
            openRun = nil
        }
    }

    /// The names of the journal's entries, as they lie in it, numbered.
    private var names = NameBytesIndex()
    /// The number of the last group's name; -1 before the first.
    private var previousNumber = -1
    /// By a name's number, the number of the group that followed its last
    /// group; -1 until one has.
    private var following: [Int] = []
    /// What each name's session takes, by the name's number; nil for a
    /// name of no living session.
    private var numbered: [Taking?] = []
    /// What the living sessions took.
    var sessions: some Sequence<Taking> { numbered.lazy.compactMap { $0 } }
    var pendingBytes = 0
    /// What a session's records start with (see `run`).
    private var firstCapacity = 256
    /// The most bytes waiting at once, and the longest the read buffer grew: what the fold held.
    private(set) var mostPending = 0
    private(set) var longestBuffer = 0
    /// Why reading stopped before the end of the journal, if it did (a torn
    /// tail, damage): what follows is not folded, as `decode` reads it.
    private(set) var damage: EntryFileContents.Damage?
    var failure: StorageError?
    var wrote = false
    var created = false

    /// Reads the journal through, appending what each session takes.
    mutating func run(_ writer: FileWriter) throws(SystemError) -> Outcome {
        guard let fd = try Syscalls.openForReading(writer.journalPath) else { return .folded }
        defer { Syscalls.close(fd) }
        defer {
            for number in numbered.indices { numbered[number]?.pending.free() }
        }
        // What a session's records start with: its share of what will wait
        // at once (the limit, or the whole journal when it is smaller), so
        // that with many sessions each grows once or not at all (starting
        // at 256 bytes cost a fold of 10,000 sessions a fifth more), and a
        // small journal does not touch a page for each of them.
        let waiting = min(pendingLimit, try Syscalls.fileLength(fd))
        firstCapacity = min(max(waiting / max(writer.sessions.count, 1), 256), 64 << 10)
        var buffer = [UInt8](repeating: 0, count: chunkLength)
        let headerLength = JournalFile.header.count
        longestBuffer = buffer.count
        var held = try Self.read(fd, into: &buffer, from: 0, at: 0)
        guard held >= headerLength, buffer[..<headerLength].elementsEqual(JournalFile.header) else {
            return held == 0 ? .folded : .needsWholeRead
        }
        var fileOffset = headerLength
        var start = headerLength
        var scratch = JournalScanScratch()
        while true {
            let scan = buffer.withUnsafeBytes { raw in
                JournalFile.scanGroups(
                    UnsafeRawBufferPointer(rebasing: raw[start..<held]), fileOffset: fileOffset, scratch: &scratch
                ) { group in
                    let number = self.number(of: group.name, writer)
                    if previousNumber >= 0 && number != previousNumber { following[previousNumber] = number }
                    previousNumber = number
                    pendingBytes += numbered[number]?.take(group, firstCapacity: firstCapacity) ?? 0
                    prefetch(after: number)
                }
            }
            mostPending = max(mostPending, pendingBytes)
            if pendingBytes >= pendingLimit { appendPending(writer) }
            fileOffset += scan.consumed
            start += scan.consumed
            switch scan.stop {
            case .endOfChunk, .needsMore:
                // Keep the unread part at the front, room for a longer record behind it.
                let unread = held - start
                let needed: Int
                if case .needsMore(let length) = scan.stop { needed = length } else { needed = 0 }
                if buffer.count < max(needed, chunkLength) {
                    buffer.append(contentsOf: repeatElement(0, count: max(needed, chunkLength) - buffer.count))
                }
                buffer.withUnsafeMutableBytes { raw in
                    // Overlapping: `copyMemory` moves.
                    if let base = raw.baseAddress { base.copyMemory(from: base + start, byteCount: unread) }
                }
                longestBuffer = max(longestBuffer, buffer.count)
                start = 0
                let count = try Self.read(fd, into: &buffer, from: unread, at: fileOffset + unread)
                held = unread + count
                // The end of the file: what is left is a torn record, cut at the next append.
                if count == 0 {
                    if unread > 0 { damage = .truncatedRecord(offset: fileOffset) }
                    return finish(writer)
                }
            case .damaged(let found):
                damage = found
                return finish(writer)
            case .otherKind:
                appendPending(writer)
                return .needsWholeRead
            }
        }
    }

    private mutating func finish(_ writer: FileWriter) -> Outcome {
        appendPending(writer)
        return .folded
    }

    /// The number of a journal entry's name; a name met for the first
    /// time is numbered with what its session takes, if it lives.
    ///
    /// The group before's session again (a row of its entries past 255),
    /// or the one that followed it last time, is checked first: each sync
    /// writes its sessions' groups in the same order (`JournalGrouping`),
    /// so with 10,000 sessions the guess is right nearly always, and a
    /// lookup in the hash table, out of the cache at every group, was a
    /// tenth of a fold.
    private mutating func number(of nameBytes: UnsafeRawBufferPointer, _ writer: FileWriter) -> Int {
        if previousNumber >= 0 {
            if names.isNumber(previousNumber, of: nameBytes) { return previousNumber }
            let guess = following[previousNumber]
            if names.isNumber(guess, of: nameBytes) { return guess }
        }
        if let number = names.number(of: nameBytes) { return number }
        var taking: Taking?
        if let name = SessionName(bytes: nameBytes.assumingMemoryBound(to: UInt8.self)),
            let files = writer.sessions[name]
        {
            taking = Taking(name, files)
        }
        numbered.append(taking)
        following.append(-1)
        return names.add(nameBytes)
    }

    /// Starts bringing into the caches what the sessions of the next two
    /// groups will be written with, if they come as they did last time:
    /// the next one's records where they grow, the one after's state. With
    /// 10,000 sessions each group reaches another session's, out of the
    /// caches since the sync before, and waited on both.
    private mutating func prefetch(after number: Int) {
        let next = following[number]
        guard next >= 0 else { return }
        let afterNext = following[next]
        if afterNext >= 0 {
            numbered.withUnsafeBufferPointer { numbered in
                if let base = numbered.baseAddress { monkey_prefetch_for_writing(base + afterNext) }
            }
        }
        numbered[next]?.pending.prefetchTail()
    }

    /// Appends every session's waiting records to its entries file (not
    /// synced: one `syncfs` when the fold is done). A session whose append
    /// fails takes nothing more; the fold fails, and is tried again later.
    mutating func appendPending(_ writer: FileWriter) {
        for number in numbered.indices {
            numbered[number]?.pending.seal()
            guard let taking = numbered[number], !taking.pending.isEmpty else { continue }
            let (name, files) = (taking.name, taking.files)
            do throws(StorageError) {
                if !files.isCurrent {
                    // Started afresh for its epoch, then appended to like the others.
                    try writer.replaceEntriesFile(files, of: name, with: EntryFile.preamble(epoch: files.epoch))
                    files.isCurrent = true
                    files.lastID = 0
                    files.lastNumber = 0
                    created = true
                }
                let path = writer.entriesPath(name)
                try AppendOnlyFile.append(taking.pending.bytes, sync: false, at: path, label: path, end: &files.end)
                files.lastID = taking.pendingLastID
                files.lastNumber = taking.pendingLastNumber
                wrote = true
            } catch {
                failure = failure ?? error
                numbered[number]?.isDone = true
            }
            numbered[number]?.pending.removeAll(keepingUpTo: firstCapacity)
        }
        pendingBytes = 0
    }

    /// Reads into `buffer` from `index` until it is full or the file ends; returns the bytes read.
    private static func read(_ fd: Int32, into buffer: inout [UInt8], from index: Int, at offset: Int)
        throws(SystemError) -> Int
    {
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in
                try Syscalls.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[index...]), at: offset)
            }
        }
        return try result.get()
    }
}
