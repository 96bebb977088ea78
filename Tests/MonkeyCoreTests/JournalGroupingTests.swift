import Testing

@testable import MonkeyCore

/// A sync's entries regrouped by session on their way to the journal: the
/// same entries, each session's in a row and in typing order.
struct JournalGroupingTests {
    /// 2,000 entries of four sessions, interleaved as ticks type them: `a`,
    /// `ab` (a name that starts as another does), `b` typing under epoch 4
    /// and then, cleared, under epoch 7, and `c`, whose texts vary in length.
    static func typed() throws -> [(SessionName, UInt64, Entry)] {
        let (a, ab, b, c) = (
            try #require(SessionName("a")), try #require(SessionName("ab")), try #require(SessionName("b")),
            try #require(SessionName("c"))
        )
        var typed: [(SessionName, UInt64, Entry)] = []
        for id in UInt64(1)...500 {
            typed.append((a, 2, Entry(id: id, number: id, text: "aaaaa", isHit: false)))
            typed.append((b, id <= 250 ? 4 : 7, Entry(id: id, number: id, text: "bbbbb", isHit: id % 9 == 0)))
            typed.append(
                (c, 5, Entry(id: id, number: id, text: String(repeating: "✓", count: Int(id % 40)), isHit: false)))
            typed.append((ab, 3, Entry(id: id, number: id, text: "ab", isHit: false)))
        }
        return typed
    }

    static func batch(_ typed: [(SessionName, UInt64, Entry)]) -> JournalBatch {
        var batch = JournalBatch()
        for (name, epoch, entry) in typed { batch.append(entry, session: name, epoch: epoch) }
        batch.seal()
        return batch
    }

    /// The (name, epoch, id) of each entry of `records`, in order.
    static func scanned(_ records: ArraySlice<UInt8>) -> (entries: [(String, UInt64, UInt64)], scan: JournalScan) {
        var entries: [(String, UInt64, UInt64)] = []
        let scan = records.withUnsafeBytes { bytes in
            JournalFile.scanEntries(bytes, fileOffset: JournalFile.header.count) { item in
                entries.append((String(decoding: item.name, as: UTF8.self), item.epoch, item.id))
            }
        }
        return (entries, scan)
    }

    @Test func eachSessionsEntriesComeInARowInTypingOrder() throws {
        let typed = try Self.typed()
        let batch = Self.batch(typed)
        var grouping = JournalGrouping()
        let result = grouping.group(batch)
        let grouped = try #require(result)
        let (entries, scan) = Self.scanned(grouped)
        #expect(scan == JournalScan(consumed: grouped.count, stop: .endOfChunk))
        // The same entries: decoded, each session's are those typed.
        let contents = JournalFile.decode(JournalFile.header + grouped)
        #expect(contents.damage == nil)
        #expect(contents.entries == JournalFile.decode(JournalFile.header + batch.records.bytes).entries)
        #expect(entries.count == typed.count)
        // In a row: a session and epoch, once left, never comes back.
        var seen: [String] = []
        for (index, (name, epoch, _)) in entries.enumerated() {
            let key = "\(name) \(epoch)"
            if index == 0 || "\(entries[index - 1].0) \(entries[index - 1].1)" != key {
                #expect(!seen.contains(key), "\(key) comes back at entry \(index)")
                seen.append(key)
            }
        }
        #expect(Set(seen) == ["a 2", "ab 3", "b 4", "b 7", "c 5"])
        // In typing order within each.
        for key in seen {
            let ids = entries.filter { "\($0.0) \($0.1)" == key }.map(\.2)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(key)")
        }
    }

    /// Past the record limit the grouped batch is sealed as a typed one is.
    @Test func aLargeBatchIsSealedInRecordsWithinTheLimit() throws {
        var typed: [(SessionName, UInt64, Entry)] = []
        let names = try (0..<100).map { try #require(SessionName("s\($0)")) }
        for id in UInt64(1)...1_000 {
            for (index, name) in names.enumerated() {
                typed.append((name, UInt64(index + 1), Entry(id: id, number: id, text: "qwerty", isHit: false)))
            }
        }
        let batch = Self.batch(typed)
        var grouping = JournalGrouping()
        let result = grouping.group(batch)
        let grouped = try #require(result)
        #expect(grouped.count < batch.records.count)
        let lengths = JournalBatchTests.recordLengths(grouped)
        #expect(lengths.count > 1)
        #expect(lengths.allSatisfy { $0 < JournalFile.entriesRecordLimit + 64 })
        let contents = JournalFile.decode(JournalFile.header + grouped)
        #expect(contents.damage == nil)
        #expect(contents.entries == JournalFile.decode(JournalFile.header + batch.records.bytes).entries)
        // Used again: the next sync's batch, alone in the result.
        let next = Self.batch(Array(typed.prefix(10)))
        let nextResult = grouping.group(next)
        let again = try #require(nextResult)
        #expect(JournalFile.decode(JournalFile.header + again).entries.values.map(\.count).reduce(0, +) == 10)
    }

    /// Sessions (found among s0…s4999) whose keys share their highest 16
    /// bits, the counting sort's bucket, but not the whole key.
    static func sessionsSharingABucket() throws -> [SessionName] {
        var byBucket: [UInt64: [(SessionName, UInt64)]] = [:]
        for number in 0..<5_000 {
            let name = try #require(SessionName("s\(number)"))
            let place = EntryPlace.place(
                key: EntryPlace.key(nameHash: JournalBatch.nameHash(of: name), epoch: 1), length: 0, offset: 0)
            byBucket[UInt64(EntryPlace.bucket(place)), default: []].append((name, EntryPlace.key(place)))
        }
        let shared = byBucket.values.filter { Set($0.map(\.1)).count > 1 }.sorted { $0[0].0.text < $1[0].0.text }
        let sessions = try #require(shared.first).map(\.0)
        #expect(sessions.count >= 2)
        return sessions
    }

    /// Sessions that share a bucket are still grouped each in a row,
    /// in typing order, whether a few entries each (sorted in place) or
    /// many (flat out): one group a session, not one an entry.
    @Test(arguments: [10, 100])
    func sessionsSharingABucketComeInARowEach(entriesEach: Int) throws {
        let sessions = try Self.sessionsSharingABucket()
        var typed: [(SessionName, UInt64, Entry)] = []
        for id in 1...UInt64(entriesEach) {
            for session in sessions { typed.append((session, 1, Entry(id: id, number: id, text: "xy", isHit: false))) }
        }
        let batch = Self.batch(typed)
        var grouping = JournalGrouping()
        let result = grouping.group(batch)
        let grouped = try #require(result)
        let (entries, _) = Self.scanned(grouped)
        #expect(entries.count == typed.count)
        var runs: [String] = []
        for entry in entries where runs.last != entry.0 { runs.append(entry.0) }
        #expect(runs.count == sessions.count && Set(runs) == Set(sessions.map(\.text)), "\(runs)")
        for session in sessions {
            #expect(entries.filter { $0.0 == session.text }.map(\.2) == Array(1...UInt64(entriesEach)))
        }
    }

    /// A group of one that would start past 8 MiB into the batch does not
    /// fit a place: the batch is written as it is.
    @Test func aBatchPastWhatAPlaceHoldsIsLeftAsItIs() throws {
        let name = try #require(SessionName("far"))
        var batch = JournalBatch()
        var id: UInt64 = 0
        func typeLong() {
            id += 1
            batch.append(
                Entry(id: id, number: id, text: String(repeating: "x", count: 60_000), isHit: false), session: name,
                epoch: 1)
        }
        while batch.count < EntryPlace.offsetLimit - 100_000 { typeLong() }
        #expect(batch.places?.count == Int(id))
        while batch.count < EntryPlace.offsetLimit { typeLong() }
        batch.append(Entry(id: id + 1, number: id + 1, text: "x", isHit: false), session: name, epoch: 1)
        #expect(batch.places == nil)
    }

    /// Past its largest, a batch is written as it is (flat-out typing's
    /// entries come a session's batch at a time).
    @Test func aBatchLargerThanTheLargestIsLeftAsItIs() throws {
        let batch = Self.batch(try Self.typed())
        var grouping = JournalGrouping(largestBatch: batch.count - 1)
        #expect(grouping.group(batch) == nil)
        grouping = JournalGrouping(largestBatch: batch.count)
        #expect(grouping.group(batch) != nil)
    }

    /// An entry of 64 KiB or more does not fit a place: the batch is written as it is.
    @Test func aBatchWithAVeryLongEntryIsLeftAsItIs() throws {
        var batch = Self.batch(Array(try Self.typed().prefix(3)))
        batch.append(
            Entry(id: 9, number: 9, text: String(repeating: "x", count: 70_000), isHit: false),
            session: try #require(SessionName("long")), epoch: 1)
        #expect(batch.places == nil)
        var grouping = JournalGrouping()
        #expect(grouping.group(batch) == nil)
    }

    @Test func anEmptyBatchGroupsToNothing() throws {
        var grouping = JournalGrouping()
        let result = grouping.group(JournalBatch())
        #expect(try #require(result).isEmpty)
    }

    /// A batch that holds an entry it was given encoded cannot say where
    /// its entries lie: it is written as it is.
    @Test func aBatchOfEncodedEntriesIsLeftAsItIs() throws {
        var batch = Self.batch(Array(try Self.typed().prefix(3)))
        #expect(batch.places?.count == 3)
        try Self.withGroup(of: "a", epoch: 2) {
            batch.append(groups: $0, at: [EntryPlace.place(key: 0, length: $0.count, offset: 0)])
        }
        #expect(batch.places == nil)
        var grouping = JournalGrouping()
        #expect(grouping.group(batch) == nil)
    }

    /// The bytes of a group of one entry of `session`, as a batch writes it.
    static func withGroup(of session: String, epoch: UInt64, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        var one = JournalBatch()
        one.append(
            Entry(id: 1, number: 1, text: "x", isHit: false), session: try #require(SessionName(session)), epoch: epoch)
        one.seal()
        one.records.bytes.withUnsafeBytes {
            body(UnsafeRawBufferPointer(rebasing: $0[(JournalFile.recordHeaderLength + 1)...]))
        }
    }

    /// The (name, epoch, count) of each group of `records`' entries records, in order.
    static func groups(_ records: ArraySlice<UInt8>) -> [(String, UInt64, Int)] {
        var groups: [(String, UInt64, Int)] = []
        let scan = records.withUnsafeBytes { bytes in
            JournalFile.scanGroups(bytes, fileOffset: 0) { group in
                groups.append((String(decoding: group.name, as: UTF8.self), group.epoch, group.count))
            }
        }
        #expect(scan.stop == .endOfChunk && scan.consumed == records.count)
        return groups
    }

    /// Typed, each entry is a group of its own; grouped, a session's
    /// entries of a sync share one name and epoch, up to 255 of them.
    @Test func aSessionsEntriesOfASyncShareTheirNameAndEpoch() throws {
        let typed = try Self.typed()
        let batch = Self.batch(typed)
        #expect(Self.groups(batch.records.bytes).count == typed.count)
        var grouping = JournalGrouping()
        let result = grouping.group(batch)
        let grouped = try #require(result)
        let groups = Self.groups(grouped)
        // 500 of "a", "ab" and "c" each (255 and 245), 250 of "b" in each of two epochs.
        #expect(
            groups.map { "\($0.0) \($0.1) \($0.2)" }.sorted() == [
                "a 2 245", "a 2 255", "ab 3 245", "ab 3 255", "b 4 250", "b 7 250", "c 5 245", "c 5 255",
            ])
        // Each entry but a group's first lost its name, epoch and count: 3 or 4 bytes here.
        #expect(batch.records.count - grouped.count >= (typed.count - groups.count) * 3)
    }

    /// A group joins the one before only when it is of the same session
    /// and epoch, byte for byte: not "ab" after "a", nor another epoch.
    @Test func aGroupJoinsOnlyTheSameSessionAndEpoch() throws {
        var batch = JournalBatch()
        for (session, epoch) in [("a", 2), ("a", 2), ("ab", 2), ("ab", 3), ("a", 2), ("a", 2)] as [(String, UInt64)] {
            try Self.withGroup(of: session, epoch: epoch) {
                batch.append(groups: $0, at: [EntryPlace.place(key: 0, length: $0.count, offset: 0)])
            }
        }
        batch.seal()
        #expect(
            Self.groups(batch.records.bytes).map { "\($0.0) \($0.1) \($0.2)" } == [
                "a 2 2", "ab 2 1", "ab 3 1", "a 2 2",
            ])
    }
}
