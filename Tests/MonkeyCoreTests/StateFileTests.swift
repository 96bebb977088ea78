import Testing

@testable import MonkeyCore

/// The state file and putting a session back together from it.
struct StateFileTests {
    func stored(target: String = "to be\nor \\not", typing: Bool = true) throws -> StoredSession {
        let settings = SessionSettings(
            monkeys: 7, interval: Interval(nanoseconds: 1_500_000), alphabet: try alphabet("ab\"=ü "),
            target: TargetMatcher(target: target))
        let snapshot = SessionSnapshot(
            name: try sessionName("s-1.x"), settings: settings, isTyping: typing, nextID: 42, nextNumber: 17,
            typed: 16, hits: 3, bestLength: 4)
        return StoredSession(snapshot: snapshot, reservedID: 142, reservedNumber: 117)
    }

    @Test(arguments: ["", "to be\nor \\not", "with\r\nCRLF and = signs", "ünï ✓"])
    func roundTrips(target: String) throws {
        let original = try stored(target: target)
        let decoded = try StateFile.decode(StateFile.encode(original), name: try sessionName("s-1.x"))
        #expect(decoded == original)
    }

    @Test func aFileForAnotherSessionIsRefused() throws {
        let bytes = StateFile.encode(try stored())
        #expect(throws: StateFile.Problem.self) { try StateFile.decode(bytes, name: try sessionName("other")) }
    }

    @Test func everyTruncationAndEveryFlippedByteIsRefused() throws {
        let bytes = StateFile.encode(try stored())
        let name = try sessionName("s-1.x")
        for length in 0..<bytes.count {
            #expect(throws: StateFile.Problem.self, "cut at \(length)") {
                try StateFile.decode(Array(bytes[..<length]), name: name)
            }
        }
        for position in 0..<bytes.count {
            var damaged = bytes
            damaged[position] ^= 0x20
            #expect(throws: StateFile.Problem.self, "flip at \(position)") { try StateFile.decode(damaged, name: name) }
        }
    }

    @Test func reservationsStayAheadAndNumbersFollowIDs() throws {
        let snapshot = try stored().snapshot
        let fresh = StoredSession.reserving(snapshot, ahead: 100, current: 0)
        #expect(fresh.reservedID == 142 && fresh.reservedNumber == 117)
        // Still far enough ahead: kept, so that a save does not move it.
        let kept = StoredSession.reserving(snapshot, ahead: 100, current: 95)
        #expect(kept.reservedID == 95 && kept.reservedNumber == 70)
        let exact = StoredSession.exact(snapshot)
        #expect(exact.reservedID == 42 && exact.reservedNumber == 17)
        #expect(
            StoredSession.reservationSize(interval: .millisecond, syncInterval: Interval(nanoseconds: 1_000_000_000))
                == 60_000)
        #expect(
            StoredSession.reservationSize(interval: .defaultTick, syncInterval: Interval(nanoseconds: 1_000_000_000))
                == 600)
        #expect(
            StoredSession.reservationSize(
                interval: Interval(nanoseconds: 3_600_000_000_000), syncInterval: .millisecond)
                == 64)
    }

    @Test func restoringCountsEntriesTypedAfterTheSnapshotAndSkipsTheReservation() throws {
        var original = try stored(target: "ab")
        original.snapshot.bestLength = 0
        original.snapshot.hits = 0
        let entries = [
            Entry(id: 40, number: 15, text: "zz", isHit: false),
            Entry(id: 41, number: 16, text: "zz", isHit: false),
            Entry(id: 42, number: 17, text: "xa", isHit: false),
            Entry(id: 43, number: 18, text: "ab", isHit: true),
        ]
        let session = original.restoredSession(entries: entries, retention: 3)
        #expect(session.typed == 18)
        #expect(session.hits == 1)
        #expect(session.best == "ab")
        #expect(session.log.count == 3 && session.log.newest?.id == 43)
        #expect(session.nextID == 142 && session.nextNumber == 117)
        #expect(session.isTyping && session.settings == original.snapshot.settings)
    }

    @Test func restoringAfterACleanShutdownIsExact() throws {
        var harness = Harness()
        try harness.expectOK("START a target=ab monkeys=2 alphabet=ab")
        harness.tick(times: 20)
        let session = try #require(harness.engine.session(named: try sessionName("a")))
        let entries = (0..<session.log.count).map { session.log[$0] }
        var bytes = ControlFile.preamble(ControlFile.logHeader, segment: 1)
        ControlFile.append(.session(StoredSession.exact(session.snapshot)), to: &bytes)
        guard case .session(let stored)? = ControlFile.decodeLog(bytes).records.first else {
            Issue.record("the record did not read back")
            return
        }
        let restored = stored.restoredSession(entries: entries, retention: 10_000)
        #expect(restored.snapshot == session.snapshot)
        #expect((0..<restored.log.count).map { restored.log[$0] } == entries)
    }
}
