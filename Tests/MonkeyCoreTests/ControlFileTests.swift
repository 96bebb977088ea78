import Testing

@testable import MonkeyCore

/// The control log and snapshot formats: records read back as written; a
/// torn or corrupt tail stops reading at the last good record; a snapshot
/// is whole or refused; replaying gives the last state.
struct ControlFileTests {
    static func stored(_ name: String, epoch: UInt64 = 3, typing: Bool = true, seed: UInt64? = nil) throws
        -> StoredSession
    {
        let settings = SessionSettings(
            monkeys: 7, interval: Interval(nanoseconds: 250_000_000), alphabet: try alphabet("ab\"= é🐒"),
            target: TargetMatcher(target: "to \"be\"\nor"), seed: seed.map(TypingSeed.init))
        let snapshot = SessionSnapshot(
            name: try sessionName(name), settings: settings, isTyping: typing, nextID: 41, nextNumber: 12,
            typed: 11, hits: 2, bestLength: 3, epoch: epoch)
        return StoredSession(snapshot: snapshot, reservedID: 641, reservedNumber: 612)
    }

    static func records() throws -> [ControlRecord] {
        [
            .session(try stored("a")), .session(try stored("b", epoch: 9, typing: false, seed: .max)),
            .reservation(Reservation(name: try sessionName("a"), epoch: 3, reservedID: 2_000, reservedNumber: 1_971)),
            .deleted(try sessionName("b")), .epochs(next: 77), .session(try stored("b", epoch: 12, seed: 0)),
        ]
    }

    static func log(_ records: [ControlRecord], segment: UInt64 = 5) -> [UInt8] {
        var bytes = ControlFile.preamble(ControlFile.logHeader, segment: segment)
        for record in records { ControlFile.append(record, to: &bytes) }
        return bytes
    }

    @Test func recordsReadBackAsWritten() throws {
        let records = try Self.records()
        let contents = ControlFile.decodeLog(Self.log(records))
        #expect(contents.records == records)
        #expect(contents.segment == 5 && contents.damage == nil)
    }

    /// Cut at every byte: the records wholly before the cut, nothing else,
    /// and the valid length is where the next append goes.
    @Test func aTornTailIsCutAtTheLastWholeRecord() throws {
        let records = try Self.records()
        let bytes = Self.log(records)
        var ends = [ControlFile.preambleLength]
        for index in records.indices { ends.append(Self.log(Array(records[...index])).count) }
        for length in ControlFile.preambleLength..<bytes.count {
            let contents = ControlFile.decodeLog(Array(bytes[..<length]))
            let whole = ends.filter { $0 <= length }
            #expect(contents.records == Array(records.prefix(whole.count - 1)), "cut at \(length)")
            #expect(contents.validLength == whole.last)
            // Only zeros left of a torn record (the low byte of its length) read as room ahead.
            let onlyZeros = bytes[(whole.last ?? 0)..<length].allSatisfy { $0 == 0 }
            #expect((contents.damage == nil) == onlyZeros)
        }
    }

    /// The log keeps zeros ahead of its records: they end it cleanly, and
    /// the next append goes where they start; anything but zeros after the
    /// last record is a torn write, cut there.
    @Test func zerosAfterTheLastRecordAreRoomNotDamage() throws {
        let records = try Self.records()
        let bytes = Self.log(records)
        for room in [1, 7, 4096] {
            let contents = ControlFile.decodeLog(bytes + [UInt8](repeating: 0, count: room))
            #expect(contents.records == records)
            #expect(contents.damage == nil)
            #expect(contents.validLength == bytes.count)
            var torn = bytes + [UInt8](repeating: 0, count: room)
            torn[torn.count - 1] = 0x01
            let cut = ControlFile.decodeLog(torn)
            #expect(cut.records == records)
            #expect(cut.damage != nil)
            #expect(cut.validLength == bytes.count)
        }
        let empty = ControlFile.decodeLog(Self.log([]) + [UInt8](repeating: 0, count: 100))
        #expect(empty.records.isEmpty && empty.damage == nil && empty.validLength == ControlFile.preambleLength)
    }

    /// Any flipped byte of a record is caught by its checksum: reading stops before it.
    @Test func everyFlippedByteStopsReadingBeforeItsRecord() throws {
        let records = try Self.records()
        let bytes = Self.log(records)
        var ends = [ControlFile.preambleLength]
        for index in records.indices { ends.append(Self.log(Array(records[...index])).count) }
        for offset in ControlFile.preambleLength..<bytes.count {
            var flipped = bytes
            flipped[offset] ^= 0x20
            let contents = ControlFile.decodeLog(flipped)
            let before = ends.filter { $0 <= offset }.count - 1
            #expect(contents.records == Array(records.prefix(before)), "flipped \(offset)")
            #expect(contents.damage != nil)
        }
    }

    @Test func replayKeepsTheLastStateAndTheHighestReservation() throws {
        var state = ControlState()
        for record in try Self.records() { state.apply(record) }
        #expect(state.sessions.count == 2)
        #expect(state.sessions[try sessionName("a")]?.reservedID == 2_000)
        #expect(state.sessions[try sessionName("b")]?.snapshot.epoch == 12)
        #expect(state.sessions[try sessionName("b")]?.snapshot.settings.seed == TypingSeed(0))
        #expect(state.nextEpoch == 77)
        // A reservation of an older epoch (before a CLEAR) changes nothing.
        state.apply(
            .reservation(Reservation(name: try sessionName("b"), epoch: 9, reservedID: 9_999, reservedNumber: 1)))
        #expect(state.sessions[try sessionName("b")]?.reservedID == 641)
    }

    @Test func aSnapshotReadsBackAsTheState() throws {
        var state = ControlState()
        for record in try Self.records() { state.apply(record) }
        let bytes = ControlFile.encodeSnapshot(state, segment: 8)
        let decoded = try ControlFile.decodeSnapshot(bytes)
        #expect(decoded.state == state && decoded.segment == 8)
    }

    @Test func aSnapshotCutOrDamagedAnywhereIsRefused() throws {
        var state = ControlState()
        for record in try Self.records() { state.apply(record) }
        let bytes = ControlFile.encodeSnapshot(state, segment: 8)
        for length in 0..<bytes.count {
            #expect(throws: ControlFile.Problem.self) { try ControlFile.decodeSnapshot(Array(bytes[..<length])) }
        }
        for offset in stride(from: 0, to: bytes.count, by: 3) where offset < 8 || offset >= 16 {
            var flipped = bytes
            flipped[offset] ^= 0x01
            #expect(throws: ControlFile.Problem.self, "flipped \(offset)") { try ControlFile.decodeSnapshot(flipped) }
        }
    }

    @Test func anEmptyOrForeignFileHasNoRecords() {
        #expect(ControlFile.decodeLog([]).records.isEmpty)
        #expect(ControlFile.decodeLog([]).damage == nil)
        #expect(ControlFile.decodeLog(Array("not a log at all".utf8)).damage == .badHeader)
    }
}
