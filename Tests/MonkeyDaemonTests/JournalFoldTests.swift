import Foundation
import Testing

@testable import MonkeyCore
@testable import MonkeyDaemon

/// A fold in bounded pieces writes exactly what a fold of the whole
/// journal writes, holding no more than a chunk and the records waiting.
@Suite("Journal fold in pieces")
struct JournalFoldTests {
    let whole = TemporaryDirectory()
    let pieces = TemporaryDirectory()

    static func name(_ text: String) throws -> SessionName { try #require(SessionName(text)) }

    static func entry(_ id: UInt64, length: Int = 40) -> Entry {
        let character: Character = id % 3 == 0 ? "✓" : "a"
        return Entry(id: id, number: id, text: String(repeating: character, count: length), isHit: id % 7 == 0)
    }

    /// Sessions: `a` whose file holds its first 3 entries, `b` whose file
    /// is of an older epoch, `c` whose journal entries stop following at
    /// one; and `cc`'s entries, of no session (a name that starts as `c`'s
    /// and follows it in the journal).
    func writer(in directory: TemporaryDirectory) throws -> FileWriter {
        let writer = FileWriter(directory: directory.path, journalLimit: 1 << 30)
        let a = EntryFile.encode((1...3).map { Self.entry($0) }, epoch: 1)
        try Data(a).write(to: URL(fileURLWithPath: writer.entriesPath(try Self.name("a"))))
        try Data(EntryFile.preamble(epoch: 1)).write(to: URL(fileURLWithPath: writer.entriesPath(try Self.name("b"))))
        writer.sessions[try Self.name("a")] = .init(
            epoch: 1, isCurrent: true, length: a.count, lastID: 3, lastNumber: 3)
        writer.sessions[try Self.name("b")] = .fresh(epoch: 2)
        writer.sessions[try Self.name("c")] = .init(
            epoch: 1, isCurrent: true, length: EntryFile.preambleLength, lastID: 0, lastNumber: 0)
        try Data(EntryFile.preamble(epoch: 1)).write(to: URL(fileURLWithPath: writer.entriesPath(try Self.name("c"))))
        return writer
    }

    /// Many records, interleaved as ticks type them, or grouped by session
    /// in each batch as a sync writes them (`JournalGrouping`), with one
    /// entry longer than the test's chunks; `rotated`, the sessions come
    /// in another order at each id.
    static func journal(grouped: Bool = false, rotated: Bool = false) throws -> [UInt8] {
        var grouping = JournalGrouping()
        var bytes = JournalFile.header
        var batch = JournalBatch()
        for id in UInt64(1)...3_000 {
            let typed: [(Entry, String, UInt64)] = [
                (entry(id), "a", 1), (entry(id, length: id == 1_501 ? 20_000 : 10), "b", 2), (entry(id), "b", 1),
                (entry(id == 2_000 ? 1 : id), "c", 1), (entry(id), "cc", 1),
            ]
            let first = rotated ? Int(id % 7 % 5) : 0
            for (entry, session, epoch) in typed[first...] + typed[..<first] {
                batch.append(entry, session: try name(session), epoch: epoch)
            }
            if id % 100 == 0 {
                batch.seal()
                let records = grouped ? grouping.group(batch) : batch.records.bytes
                bytes += try #require(records)
                batch = JournalBatch()
            }
        }
        return bytes
    }

    static func longestRecord(_ journal: [UInt8]) -> Int {
        var (offset, longest) = (JournalFile.header.count, 0)
        while offset + 4 <= journal.count {
            let length = 8 + journal[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            longest = max(longest, length)
            offset += length
        }
        return longest
    }

    func files(of writer: FileWriter) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in ["a", "b", "c"] {
            files[name] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: writer.entriesPath(try Self.name(name)))))
        }
        return files
    }

    /// What a session's file holds, read back.
    struct Held: Equatable {
        let epoch: UInt64
        let entries: [Entry]
        let damage: EntryFileContents.Damage?
    }

    /// What each session's file holds: a fold in pieces ends its runs at
    /// other places than a whole fold, and must hold the same entries.
    func held(by writer: FileWriter) throws -> [String: Held] {
        try files(of: writer).mapValues {
            let contents = EntryFile.decode($0, keepingLast: .max)
            return Held(epoch: contents.epoch, entries: contents.entries, damage: contents.damage)
        }
    }

    /// Folds the same journal whole and in pieces, `times` times each (a
    /// crash before the journal is removed folds it again); returns the
    /// writers and the last fold in pieces.
    func foldBothWays(times: Int, grouped: Bool = false, rotated: Bool = false) throws -> (
        whole: FileWriter, pieces: FileWriter, fold: JournalFold
    ) {
        let journal = try Self.journal(grouped: grouped, rotated: rotated)
        let (wholeWriter, piecesWriter) = (try writer(in: whole), try writer(in: pieces))
        try Data(journal).write(to: URL(fileURLWithPath: wholeWriter.journalPath))
        try Data(journal).write(to: URL(fileURLWithPath: piecesWriter.journalPath))
        var fold = JournalFold()
        for _ in 0..<times {
            try wholeWriter.fold(wholeWriter.unfolded(wholeWriter.readJournal()))
            fold = JournalFold(chunkLength: 4_096, pendingLimit: 16_384)
            #expect(try fold.run(piecesWriter) == .folded)
            #expect(fold.failure == nil)
        }
        return (wholeWriter, piecesWriter, fold)
    }

    @Test func aFoldInPiecesWritesWhatAWholeFoldWrites() throws {
        let (wholeWriter, piecesWriter, fold) = try foldBothWays(times: 1)
        #expect(try held(by: piecesWriter) == held(by: wholeWriter))
        let written = try files(of: piecesWriter)
        for name in ["a", "b", "c"] {
            let files = try #require(piecesWriter.sessions[try Self.name(name)])
            let expected = try #require(wholeWriter.sessions[try Self.name(name)])
            #expect(files.isCurrent && files.lastID == expected.lastID && files.end.length == written[name]?.count)
        }
        #expect(piecesWriter.sessions[try Self.name("c")]?.lastID == 1_999)
        // Bounded: a chunk, or the longest record, and the records
        // waiting, past their limit by at most what one buffer holds.
        #expect(fold.longestBuffer <= max(4_096, try Self.longestRecord(Self.journal())))
        #expect(fold.mostPending < 16_384 + 2 * fold.longestBuffer)
    }

    /// Sessions in another order at each id: the fold's guess of each
    /// group's session (the one before's, or the one that followed it last
    /// time) is often wrong, and is checked against the name.
    @Test func aJournalInChangingOrderFoldsAsAWholeFoldDoes() throws {
        let (wholeWriter, piecesWriter, _) = try foldBothWays(times: 1, rotated: true)
        #expect(try held(by: piecesWriter) == held(by: wholeWriter))
        #expect(piecesWriter.sessions[try Self.name("c")]?.lastID == 1_999)
    }

    /// A session's entries in a row, as syncs write them: the fold takes
    /// the name before without looking it up, and must still tell `b`'s
    /// two epochs, `c`'s entry that does not follow, and `cc` apart.
    @Test func aGroupedJournalFoldsAsAnInterleavedOne() throws {
        #expect(try Self.journal(grouped: true) != Self.journal())
        let (wholeWriter, piecesWriter, _) = try foldBothWays(times: 1, grouped: true)
        let files = try files(of: piecesWriter)
        #expect(try held(by: piecesWriter) == held(by: wholeWriter))
        let a = EntryFile.decode(files["a"] ?? [], keepingLast: .max)
        #expect(a.damage == nil && a.entries.map(\.id) == Array(1...3_000))
        #expect(piecesWriter.sessions[try Self.name("c")]?.lastID == 1_999)
        let b = EntryFile.decode(files["b"] ?? [], keepingLast: .max)
        #expect(b.epoch == 2 && b.entries.count == 3_000 && b.entries[1_500].text.utf8.count == 20_000)
    }

    /// A sync writes the entries typed since the last grouped by session.
    @Test func aSyncWritesEachSessionsEntriesInARow() throws {
        let writer = try writer(in: pieces)
        var outbox = Outbox()
        for id in UInt64(4)...100 {
            outbox.append(Self.entry(id), session: try Self.name("a"), epoch: 1)
            outbox.append(Self.entry(id), session: try Self.name("c"), epoch: 1)
        }
        outbox.entries.seal()
        #expect(writer.write(outbox).failure == nil)
        let journal = try [UInt8](Data(contentsOf: URL(fileURLWithPath: writer.journalPath)))
        var names: [String] = []
        let scan = journal.withUnsafeBytes { bytes in
            JournalFile.scanEntries(
                UnsafeRawBufferPointer(rebasing: bytes[JournalFile.header.count...]),
                fileOffset: JournalFile.header.count
            ) { names.append(String(decoding: $0.name, as: UTF8.self)) }
        }
        #expect(scan.stop == .endOfChunk)
        let first = try #require(names.first)
        let second = first == "a" ? "c" : "a"
        #expect(names == Array(repeating: first, count: 97) + Array(repeating: second, count: 97))
    }

    /// Folded again (a crash before the journal was removed): what a whole fold does again, nothing twice.
    @Test func aFoldDoneTwiceDoesWhatAWholeFoldDoes() throws {
        let (wholeWriter, piecesWriter, _) = try foldBothWays(times: 2)
        let files = try files(of: piecesWriter)
        #expect(try held(by: piecesWriter) == held(by: wholeWriter))
        let a = EntryFile.decode(files["a"] ?? [], keepingLast: .max)
        #expect(a.damage == nil && a.entries.map(\.id) == Array(1...3_000))
    }

    /// The fold as the writer runs it: the journal removed once folded.
    @Test func theWriterFoldsInPiecesAndRemovesTheJournal() throws {
        let writer = try writer(in: pieces)
        try Data(try Self.journal()).write(to: URL(fileURLWithPath: writer.journalPath))
        try writer.foldJournal()
        #expect(!FileManager.default.fileExists(atPath: writer.journalPath))
        let a = EntryFile.decode(try files(of: writer)["a"] ?? [], keepingLast: .max)
        #expect(a.damage == nil && a.entries.map(\.id) == Array(1...3_000))
    }

    /// The control state loading reads: `a` and `c` of epoch 1, `b` of epoch 2.
    static func state() throws -> ControlState {
        var state = ControlState()
        for (name, epoch) in [("a", UInt64(1)), ("b", 2), ("c", 1)] {
            let snapshot = SessionSnapshot(
                name: try Self.name(name), settings: .defaults, isTyping: false, nextID: 1, nextNumber: 1, typed: 0,
                hits: 0, bestLength: 0, epoch: epoch)
            state.sessions[try Self.name(name)] = .exact(snapshot)
        }
        return state
    }

    /// At start-up, the fold in pieces from the files as they lie: what a
    /// whole fold of the journal writes, the journal removed, the writer's
    /// sessions left for loading to fill.
    @Test func atStartUpTheJournalIsFoldedInPiecesBeforeLoading() throws {
        let journal = try Self.journal()
        let (wholeWriter, piecesWriter) = (try writer(in: whole), try writer(in: pieces))
        try Data(journal).write(to: URL(fileURLWithPath: wholeWriter.journalPath))
        try Data(journal).write(to: URL(fileURLWithPath: piecesWriter.journalPath))
        try wholeWriter.fold(wholeWriter.unfolded(wholeWriter.readJournal()))
        piecesWriter.sessions = [:]
        var lines: [String] = []
        #expect(piecesWriter.foldJournalBeforeLoading(try Self.state()) { lines.append($1) })
        #expect(try held(by: piecesWriter) == held(by: wholeWriter))
        #expect(!FileManager.default.fileExists(atPath: piecesWriter.journalPath))
        #expect(piecesWriter.sessions.isEmpty)
        // a: 4...3000, b: 1...3000 of epoch 2, c: 1...1999.
        #expect(lines == ["folded 7996 entries of 3 sessions from the entries journal"], "\(lines)")
    }

    /// The same journal as format version 3 wrote it: each entry with its
    /// session's name and epoch, a record of each 100 ids.
    static func versionThreeJournal() throws -> [UInt8] {
        var bytes = JournalFile.headerVersion3
        var record: [UInt8] = []
        for id in UInt64(1)...3_000 {
            let entries: [(String, UInt64, Entry)] = [
                ("a", 1, entry(id)), ("b", 2, entry(id, length: id == 1_501 ? 20_000 : 10)), ("b", 1, entry(id)),
                ("c", 1, entry(id == 2_000 ? 1 : id)), ("cc", 1, entry(id)),
            ]
            for (session, epoch, entry) in entries {
                record.append(UInt8(session.utf8.count))
                record += session.utf8
                VarInt.append(epoch, to: &record)
                record += EntryFile.records(CollectionOfOne(entry))[EntryFile.runHeaderLength...]
            }
            if id % 100 == 0 {
                var sealed = [UInt8](repeating: 0, count: JournalFile.recordHeaderLength) + [3] + record
                sealed.withUnsafeMutableBytes { SealedRecord.seal($0) }
                bytes += sealed
                record = []
            }
        }
        return bytes
    }

    /// At start-up after an upgrade, a journal of version 3 is left to be
    /// read whole (`decode` reads it; the fold in pieces reads this
    /// version only), and that whole fold writes what the same journal of
    /// this version writes.
    @Test func aJournalOfVersionThreeIsFoldedWholeAtStartUp() throws {
        let (wholeWriter, piecesWriter) = (try writer(in: whole), try writer(in: pieces))
        try Data(try Self.journal()).write(to: URL(fileURLWithPath: wholeWriter.journalPath))
        try wholeWriter.fold(wholeWriter.unfolded(wholeWriter.readJournal()))
        try Data(try Self.versionThreeJournal()).write(to: URL(fileURLWithPath: piecesWriter.journalPath))
        let sessions = piecesWriter.sessions
        piecesWriter.sessions = [:]
        #expect(!piecesWriter.foldJournalBeforeLoading(try Self.state()) { _, _ in })
        #expect(FileManager.default.fileExists(atPath: piecesWriter.journalPath))
        piecesWriter.sessions = sessions
        let contents = try piecesWriter.readJournal()
        #expect(contents.version == 3 && contents.damage == nil)
        var lines: [String] = []
        try piecesWriter.foldJournalAtStart(contents, unfolded: piecesWriter.unfolded(contents)) { lines.append($1) }
        #expect(try held(by: piecesWriter) == held(by: wholeWriter))
        #expect(!FileManager.default.fileExists(atPath: piecesWriter.journalPath))
        #expect(lines == ["folded 7996 entries of 3 sessions from the entries journal"], "\(lines)")
    }

    /// A damaged entries file is loading's to repair: the journal is left
    /// to be read whole, as before.
    @Test func aDamagedEntriesFileLeavesTheJournalToBeReadWhole() throws {
        let writer = try writer(in: pieces)
        try Data(try Self.journal()).write(to: URL(fileURLWithPath: writer.journalPath))
        let path = writer.entriesPath(try Self.name("a"))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("torn".utf8))
        handle.closeFile()
        writer.sessions = [:]
        #expect(!writer.foldJournalBeforeLoading(try Self.state()) { _, _ in })
        #expect(FileManager.default.fileExists(atPath: writer.journalPath))
        #expect(writer.sessions.isEmpty)
    }

    /// A session's records keep their memory from one round of appends to
    /// the next, up to its first capacity; more is freed, so that what a
    /// fold keeps between rounds stays within its sessions' first capacities.
    @Test func recordsKeepTheirMemoryBetweenRoundsUpToTheirFirstCapacity() {
        var records = JournalFold.PendingRecords()
        [UInt8](repeating: 7, count: 92).withUnsafeBytes { entry in
            // The first entry opens a run: its header comes first.
            #expect(records.append(entry, firstCapacity: 4_096) == 100)
            records.seal()
            let first = records.bytes.baseAddress
            records.removeAll(keepingUpTo: 4_096)
            #expect(records.isEmpty && records.capacity == 4_096)
            _ = records.append(entry, firstCapacity: 4_096)
            records.seal()
            #expect(records.bytes.baseAddress == first)
            // Sealed, the run is closed: the next entry opens another.
            #expect(records.append(entry, firstCapacity: 4_096) == 100)
            for _ in 0..<80 { #expect(records.append(entry, firstCapacity: 4_096) == 92) }
            #expect(records.count == 2 * 100 + 80 * 92 && records.capacity > 4_096)
            records.removeAll(keepingUpTo: 4_096)
            #expect(records.isEmpty && records.capacity == 0)
        }
        records.free()
    }

    /// The entries a fold copies from the journal become runs of an entries
    /// file as `EntryFile.decode` reads them, a run sealed each time it
    /// fills (`EntryFile.runLimit`) and when the records are appended.
    @Test func recordsAreRunsOfTheEntriesAsAFileHoldsThem() {
        let entries = (1...5_000).map {
            Entry(id: UInt64($0) * 2, number: UInt64($0), text: "entry \($0)", isHit: $0 % 7 == 0)
        }
        var records = JournalFold.PendingRecords()
        var added = 0
        for entry in entries {
            // An entry's bytes in a run: a run of one without its header.
            let run = EntryFile.records(CollectionOfOne(entry))
            run.withUnsafeBytes {
                added += records.append(
                    UnsafeRawBufferPointer(rebasing: $0[EntryFile.runHeaderLength...]), firstCapacity: 256)
            }
        }
        records.seal()
        #expect(added == records.count)
        let file = EntryFile.preamble(epoch: 3) + Array(records.bytes)
        let contents = EntryFile.decode(file, keepingLast: .max)
        #expect(contents.damage == nil && contents.entries == entries && contents.validLength == file.count)
        // More than one run: the file is cut whole run by whole run.
        let cut = EntryFile.decode(Array(file[..<(file.count - 1)]), keepingLast: .max)
        #expect(cut.entries.count > 0 && cut.entries.count < entries.count)
        #expect(cut.entries == Array(entries.prefix(cut.entries.count)))
        records.free()
    }

    /// Records wait up to 4 MiB, or 8 KiB a session when that is more, so
    /// that 10,000 typing sessions write their files once a fold of a
    /// journal of the default size.
    @Test func recordsWaitLongerWithManySessions() {
        #expect(JournalFold.pendingLimit(sessions: 0) == 4 << 20)
        #expect(JournalFold.pendingLimit(sessions: 512) == 4 << 20)
        #expect(JournalFold.pendingLimit(sessions: 10_000) == 10_000 * 8_192)
        #expect(JournalFold.pendingLimit(sessions: 10_000) >= Configuration().journalSize)
    }
}
