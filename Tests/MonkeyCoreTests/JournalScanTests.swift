import Testing

@testable import MonkeyCore

/// The journal read in pieces, as a fold reads it: whole records only, each
/// checked before any of its entries is seen, stopping where `decode` stops.
struct JournalScanTests {
    typealias Fixture = JournalFileTests

    /// What a scan of `bytes` (the records after the header) hands over, by session and epoch.
    static func scan(_ bytes: [UInt8]) throws -> (entries: [SessionEpoch: [Entry]], scan: JournalScan) {
        var entries: [SessionEpoch: [Entry]] = [:]
        var failure: String?
        let scan = bytes.withUnsafeBytes { raw in
            JournalFile.scanEntries(raw, fileOffset: JournalFile.header.count) { item in
                guard let name = SessionName(String(decoding: item.name, as: UTF8.self)) else {
                    failure = "a name that is no session's"
                    return
                }
                let entry = Entry(
                    id: item.id, number: item.number, text: String(decoding: item.text, as: UTF8.self),
                    isHit: item.isHit)
                entries[SessionEpoch(name, item.epoch), default: []].append(entry)
            }
        }
        if let failure { Issue.record("\(failure)") }
        return (entries, scan)
    }

    @Test func aScanSeesWhatDecodeSees() throws {
        let records = Fixture.records(Fixture.batches)
        let (entries, scan) = try Self.scan(records)
        #expect(entries == JournalFile.decode(Fixture.journal(Fixture.batches)).entries)
        #expect(scan == JournalScan(consumed: records.count, stop: .endOfChunk))
    }

    /// A chunk ending anywhere: the whole records before its end are read,
    /// and the next record says how long it is, so that the reader reads on.
    @Test func aChunkCutAnywhereReadsItsWholeRecordsAndAsksForTheRest() throws {
        let records = Fixture.records(Fixture.batches)
        let boundaries = (0...Fixture.batches.count).map { Fixture.records(Array(Fixture.batches.prefix($0))).count }
        for length in 0..<records.count {
            let (entries, scan) = try Self.scan(Array(records[..<length]))
            let kept = try #require(boundaries.lastIndex { $0 <= length })
            #expect(scan.consumed == boundaries[kept], "cut at \(length)")
            #expect(entries == JournalFile.decode(Fixture.journal(Array(Fixture.batches.prefix(kept)))).entries)
            if length == boundaries[kept] {
                #expect(scan.stop == .endOfChunk, "cut at \(length)")
            } else {
                guard case .needsMore(let needed) = scan.stop else {
                    Issue.record("cut at \(length): \(scan.stop)")
                    continue
                }
                #expect(length - boundaries[kept] < needed, "cut at \(length)")
                #expect(needed <= max(boundaries[kept + 1] - boundaries[kept], 9), "cut at \(length)")
            }
        }
    }

    /// Damage stops a scan where it stops `decode`, with the same offset in the file.
    @Test func aFlippedByteStopsTheScanWhereDecodeStops() throws {
        let bytes = Fixture.journal(Fixture.batches)
        for offset in JournalFile.header.count..<bytes.count {
            var damaged = bytes
            damaged[offset] ^= 0x10
            let decoded = JournalFile.decode(damaged)
            let (entries, scan) = try Self.scan(Array(damaged[JournalFile.header.count...]))
            #expect(entries == decoded.entries, "flipped at \(offset)")
            #expect(scan.consumed + JournalFile.header.count == decoded.validLength, "flipped at \(offset)")
            switch scan.stop {
            case .damaged(let damage): #expect(damage == decoded.damage, "flipped at \(offset)")
            // A length made longer reads as a record still to come; at the end of the file it is torn.
            case .needsMore: #expect(decoded.damage == .truncatedRecord(offset: decoded.validLength))
            default: Issue.record("flipped at \(offset): \(scan.stop)")
            }
        }
    }

    /// A sealed record with an entry whose name is no valid session name
    /// (a "/" in it) is damage, as `decode` has it: none of its entries is taken.
    @Test func aRecordWithAnInvalidNameIsDamage() throws {
        var records = Fixture.records(Fixture.batches)
        let length = Int(EntryFile.integer(UInt32.self, records.withUnsafeBytes { $0 }, at: 0))
        // The header, the record's kind, the first entry's name length, then its name.
        records[JournalFile.recordHeaderLength + 2] = UInt8(ascii: "/")
        let recordEnd = JournalFile.recordHeaderLength + length
        records.withUnsafeMutableBytes { raw in
            SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: raw[..<recordEnd]))
        }
        let (entries, scan) = try Self.scan(records)
        let decoded = JournalFile.decode(JournalFile.header + records)
        #expect(entries.isEmpty && decoded.entries.isEmpty)
        #expect(scan == JournalScan(consumed: 0, stop: .damaged(.checksumMismatch(offset: JournalFile.header.count))))
        #expect(decoded.damage == .checksumMismatch(offset: JournalFile.header.count))
    }

    /// In a record of a session's entries in a row, as syncs write them
    /// (`JournalGrouping`), an invalid name after a run of a valid one of
    /// the same length is damage too: every entry's name is checked.
    @Test func anInvalidNameAfterARunOfAnotherIsDamage() throws {
        var batch = JournalBatch()
        for (id, name) in ["ab", "ab", "ab", "ac"].enumerated() {
            let entry = Entry(id: UInt64(id + 1), number: UInt64(id + 1), text: "q", isHit: false)
            batch.append(entry, session: try #require(SessionName(name)), epoch: 1)
        }
        batch.seal()
        var records = Array(batch.records.bytes)
        #expect(try Self.scan(records).entries.values.joined().count == 4)
        let name = try #require(records.indices.last { records[$0] == UInt8(ascii: "a") })
        records[name + 1] = UInt8(ascii: "/")
        records.withUnsafeMutableBytes { SealedRecord.seal($0) }
        let (entries, scan) = try Self.scan(records)
        #expect(entries.isEmpty)
        #expect(scan == JournalScan(consumed: 0, stop: .damaged(.checksumMismatch(offset: JournalFile.header.count))))
    }

    /// A record only `decode` reads (a fresh start) is left to it.
    @Test func aRecordOfAnotherKindIsLeftToDecode() throws {
        let records = Fixture.records([Fixture.batches[0]])
        let (entries, scan) = try Self.scan(records + Fixture.freshStart("a") + records)
        #expect(entries.values.joined().count == 1)
        #expect(scan == JournalScan(consumed: records.count, stop: .otherKind))
    }

    /// Scanned a group at a time, as a fold takes them: each group's first
    /// and last ids and numbers, and whether they rise throughout, as its
    /// entries say.
    @Test func aGroupSaysWhereItsEntriesStartAndEndAndWhetherTheyRise() throws {
        var batch = JournalBatch()
        let (a, b) = (try #require(SessionName("a")), try #require(SessionName("b")))
        for (session, id, number) in [(a, 5, 5), (a, 6, 7), (a, 9, 8), (b, 3, 3), (b, 4, 2), (b, 5, 6)] {
            batch.append(
                Entry(id: UInt64(id), number: UInt64(number), text: "q", isHit: false), session: session, epoch: 1)
        }
        var grouping = JournalGrouping()
        let result = grouping.group(batch)
        let grouped = try #require(result)
        var groups: [String] = []
        let scan = grouped.withUnsafeBytes { bytes in
            JournalFile.scanGroups(bytes, fileOffset: JournalFile.header.count) { group in
                var ids: [UInt64] = []
                var offset = 0
                for _ in 0..<group.count {
                    let entry = group.entry(at: offset)
                    ids.append(entry.id)
                    offset = entry.end
                }
                #expect(offset == group.entries.count)
                groups.append(
                    "\(String(decoding: group.name, as: UTF8.self)) \(ids) \(group.first.id)/\(group.first.number)"
                        + " \(group.last.id)/\(group.last.number) \(group.isIncreasing)")
            }
        }
        #expect(scan == JournalScan(consumed: grouped.count, stop: .endOfChunk))
        #expect(groups.sorted() == ["a [5, 6, 9] 5/5 9/8 true", "b [3, 4, 5] 3/3 5/6 false"])
    }
}
