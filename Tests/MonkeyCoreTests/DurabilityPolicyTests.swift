import Testing

@testable import MonkeyCore

/// The durability policy decides, without touching a file, what the store
/// writes: the records of a group of changes, reservations of ids, and when
/// entries files and the control log are compacted.
struct DurabilityPolicyTests {
    static let second = Interval(nanoseconds: 1_000_000_000)

    func policy() -> DurabilityPolicy {
        DurabilityPolicy(syncInterval: Self.second, segment: 1, segmentBytes: 0)
    }

    func snapshot(_ name: String, epoch: UInt64, nextID: UInt64 = 1, monkeys: Int = 1) throws -> SessionSnapshot {
        var settings = SessionSettings.defaults
        settings.monkeys = monkeys
        return SessionSnapshot(
            name: try sessionName(name), settings: settings, isTyping: true, nextID: nextID, nextNumber: nextID,
            typed: nextID - 1, hits: 0, bestLength: 0, epoch: epoch)
    }

    /// What replaying records gives, as start-up does.
    func replay(_ records: [ControlRecord]) -> ControlState {
        var state = ControlState()
        for record in records { state.apply(record) }
        return state
    }

    // MARK: Groups of changes

    /// The records of effects, each session's state taken from the last
    /// of `states` naming it: its state once the group is applied.
    func records(
        _ policy: DurabilityPolicy, _ effects: [Effect], states: [SessionSnapshot]
    ) -> [ControlRecord] {
        let last = Dictionary(states.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        return policy.records(for: effects, state: { last[$0] })
    }

    @Test func aGroupKeepsTheLastChangeOfEachSessionInOrder() throws {
        let policy = policy()
        let states = [
            try snapshot("a", epoch: 1, monkeys: 2), try snapshot("b", epoch: 2),
            try snapshot("a", epoch: 1, monkeys: 3),
            try snapshot("b", epoch: 3), try snapshot("c", epoch: 4),
        ]
        let effects: [Effect] = [
            .save(states[0].name, epoch: 1), .save(states[1].name, epoch: 2), .save(states[2].name, epoch: 1),
            .clear(states[3].name, epoch: 3), .save(states[4].name, epoch: 4),
        ]
        #expect(
            records(policy, effects, states: states) == [states[2], states[3], states[4]].map(policy.record(saving:)))
    }

    @Test func aSingleChangeIsItsOwnRecord() throws {
        let policy = policy()
        let state = try snapshot("a", epoch: 7)
        #expect(records(policy, [.clear(state.name, epoch: 7)], states: [state]) == [policy.record(saving: state)])
        #expect(records(policy, [.delete(state.name)], states: []) == [.deleted(state.name)])
        #expect(records(policy, [], states: []).isEmpty)
    }

    /// A session created and deleted in one group leaves no session record,
    /// but its epoch is never given again after a restart.
    @Test func anEpochOnlyADroppedRecordHeldIsKept() throws {
        let policy = policy()
        let name = try sessionName("a")
        let records = records(policy, [.save(name, epoch: 9), .delete(name)], states: [])
        #expect(records == [.deleted(name), .epochs(next: 10)])
        #expect(replay(records).nextEpoch == 10)
        #expect(replay(records).sessions.isEmpty)
    }

    /// Replaying a group's records gives what replaying one record per
    /// change gives: the same sessions, reservations and next epoch.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func aGroupReplaysAsItsChangesDo(seed: UInt64) throws {
        var random = WyRand(seed: seed)
        var policy = policy()
        let names = ["a", "b", "c"]
        var epoch: UInt64 = 1
        // Some sessions already known to the policy, with reservations.
        let known = try names.prefix(2).map { try snapshot($0, epoch: 0, nextID: 40) }
        policy.committed(known.map(policy.record(saving:)), bytes: 0)
        var before = ControlState()
        for snapshot in known { before.apply(policy.record(saving: snapshot)) }
        for _ in 0..<200 {
            let count = Int(random.next(below: 12))
            // Each change and the state it leaves its session in (none: deleted).
            var changes: [(effect: Effect, state: SessionSnapshot?)] = []
            for _ in 0..<count {
                let name = names[Int(random.next(below: UInt64(names.count)))]
                epoch += 1
                switch random.next(below: 3) {
                case 0: changes.append((.delete(try sessionName(name)), nil))
                case 1:
                    changes.append(
                        (.clear(try sessionName(name), epoch: epoch), try snapshot(name, epoch: epoch, nextID: 50)))
                default:
                    let state = try snapshot(name, epoch: epoch, nextID: 45, monkeys: Int(epoch % 9) + 1)
                    changes.append((.save(state.name, epoch: epoch), state))
                }
            }
            var each = before
            for change in changes {
                for record in policy.records(for: [change.effect], state: { _ in change.state }) { each.apply(record) }
            }
            // Once the group is applied, a session has the state of its last change.
            var last: [SessionName: SessionSnapshot?] = [:]
            for change in changes { last[change.effect.session] = change.state }
            var grouped = before
            for record in policy.records(for: changes.map(\.effect), state: { last[$0] ?? nil }) {
                grouped.apply(record)
            }
            #expect(grouped == each, "\(changes.map(\.effect))")
        }
    }

    // MARK: Books and reservations

    @Test func aChangeReservesIdsAheadAndKeepsAReservationFarEnough() throws {
        var policy = policy()
        let size = policy.reservationSize(.defaultTick)
        let first = policy.record(saving: try snapshot("a", epoch: 1, nextID: 10))
        guard case .session(let stored) = first else {
            Issue.record("not a session record: \(first)")
            return
        }
        #expect(stored.reservedID == 10 + size)
        #expect(stored.reservedNumber == 10 + size)
        policy.committed([first], bytes: 100)
        #expect(policy.segmentBytes == 100)
        #expect(policy.books[try sessionName("a")]?.reservedID == 10 + size)

        // Not yet half used: the reservation on disk stays.
        guard case .session(let again) = policy.record(saving: try snapshot("a", epoch: 1, nextID: 11)) else {
            Issue.record("not a session record")
            return
        }
        #expect(again.reservedID == 10 + size)
        // A CLEAR continues the ids, so the reservation still counts.
        guard case .session(let cleared) = policy.record(saving: try snapshot("a", epoch: 2, nextID: 11)) else {
            Issue.record("not a session record")
            return
        }
        #expect(cleared.reservedID == 10 + size)
    }

    @Test func typingAsksForARenewalAtHalfAndWritesOneAtOnceAtTheEnd() throws {
        var policy = policy()
        var session = Session(name: try sessionName("a"), settings: .defaults, retention: 1_000_000, epoch: 1)
        policy.committed([policy.record(saving: session.snapshot)], bytes: 0)
        let size = policy.reservationSize(.defaultTick)
        var random = WyRand(seed: 1)
        var renewalAskedAt: UInt64?
        var plans: [DurabilityPolicy.EntryPlan] = []
        for _ in 0..<size {
            let entry = session.type(using: &random)
            plans.append(policy.typed(entry, of: session))
            if renewalAskedAt == nil && !policy.wantedReservations.isEmpty { renewalAskedAt = entry.id }
        }
        #expect(renewalAskedAt == 1 + size / 2)
        #expect(plans.allSatisfy { $0.reservesNow == nil })
        // The renewal was never written: the last id reserved is reached.
        let entry = session.type(using: &random)
        #expect(entry.id == 1 + size)
        let plan = policy.typed(entry, of: session)
        let reservation = try #require(plan.reservesNow)
        #expect(reservation.reservedID == entry.id + 1 + size)
        policy.committed([.reservation(reservation)], bytes: 0)
        #expect(policy.wantedReservations.isEmpty)
        #expect(policy.books[session.name]?.reservedID == reservation.reservedID)
    }

    /// One monkey flat out makes a hundred million one-character entries a
    /// second: a reservation of 2^20 ids lasts ten milliseconds, so it
    /// would be written at once about a hundred times a second, each
    /// holding the session for a sync. Doubling at each such write, a few
    /// of them suffice; after that the renewals wait for the syncs.
    @Test(arguments: [4 << 20, 300 << 20])
    func aFlatOutSessionThatOutrunsItsReservationsGrowsThem(idsPerSync: UInt64) throws {
        var policy = policy()
        var state = try snapshot("a", epoch: 1)
        state.settings.interval = Interval(nanoseconds: 0)
        policy.committed([policy.record(saving: state)], bytes: 0)
        let session = Session(name: state.name, settings: state.settings, retention: 10, epoch: 1)
        let initialSize = try #require(policy.books[session.name]).reservationSize
        var atOnce: [UInt64] = []
        var id: UInt64 = 1
        var nextSync = idsPerSync
        for _ in 0..<100_000 where id < 200 * idsPerSync {
            let plan = policy.typed(Entry(id: id, number: id, text: "a", isHit: false), of: session)
            if let reservation = plan.reservesNow {
                atOnce.append(id)
                policy.committed([.reservation(reservation)], bytes: 0)
            }
            let book = try #require(policy.books[session.name])
            #expect(id < book.reservedID, "id \(id) handed out past the reservation on disk")
            // The store sees the session's entries again at its next
            // attention; a sync writes the renewals asked for meanwhile.
            id = min(plan.attention.nextReservationID, nextSync)
            if id == nextSync {
                policy.committed(policy.wantedReservations, bytes: 0)
                nextSync += idsPerSync
            }
        }
        #expect(id >= 200 * idsPerSync, "200 syncs' typing seen")
        let grownSize = try #require(policy.books[session.name]).reservationSize
        #expect(grownSize > initialSize && grownSize <= 4 * idsPerSync)
        // Each write at once doubles: about log2(syncs' typing ÷ 2^20) + 1 of them, all early.
        #expect(atOnce.count <= 12, "\(atOnce.count) reservations written at once")
        #expect(atOnce.allSatisfy { $0 < 10 * idsPerSync }, "\(atOnce)")
        // A change of the flat-out session keeps the grown size; one to a timed interval does not.
        policy.committed([policy.record(saving: state)], bytes: 0)
        #expect(policy.books[session.name]?.reservationSize == grownSize)
        state.settings.interval = .defaultTick
        policy.committed([policy.record(saving: state)], bytes: 0)
        #expect(policy.books[session.name]?.reservationSize == policy.reservationSize(.defaultTick))
    }

    @Test func anEntriesFileIsCompactedAtTwiceTheRetention() throws {
        var policy = policy()
        var session = Session(name: try sessionName("a"), settings: .defaults, retention: 5, epoch: 1)
        policy.committed([policy.record(saving: session.snapshot)], bytes: 0)
        var random = WyRand(seed: 2)
        var compactedAt: [UInt64] = []
        for _ in 0..<25 {
            let entry = session.type(using: &random)
            if policy.typed(entry, of: session).compactsEntriesFile { compactedAt.append(entry.id) }
        }
        // Ten records in the file, then the five retained replace them.
        #expect(compactedAt == [11, 17, 23])
    }

    @Test func aCommitOfANewEpochStartsItsEntriesFileEmpty() throws {
        var policy = policy()
        let name = try sessionName("a")
        var session = Session(name: name, settings: .defaults, retention: 3, epoch: 1)
        policy.committed([policy.record(saving: session.snapshot)], bytes: 0)
        var random = WyRand(seed: 3)
        for _ in 0..<5 { _ = policy.typed(session.type(using: &random), of: session) }
        #expect(policy.books[name]?.recordsInFile == 5)
        session.clear(epoch: 2)
        policy.committed([policy.record(saving: session.snapshot)], bytes: 0)
        #expect(policy.books[name]?.recordsInFile == 0)
        #expect(policy.books[name]?.epoch == 2)
        policy.committed([.deleted(name)], bytes: 0)
        #expect(policy.books[name] == nil)
    }

    // MARK: Event ids and the control log

    @Test func eventIdsAreReservedAheadAndRenewedAtHalf() {
        var policy = policy()
        let size = DurabilityPolicy.eventReservationSize
        #expect(policy.eventIDUsed(1) == .eventIDs(reservedThrough: 2 + size))
        policy.committed([.eventIDs(reservedThrough: 2 + size)], bytes: 0)
        #expect(policy.eventIDUsed(2) == nil)
        #expect(policy.wantedReservations.isEmpty)
        #expect(policy.eventIDUsed(2 + size / 2) == nil)
        #expect(policy.wantedReservations == [.eventIDs(reservedThrough: 3 + size / 2 + size)])
    }

    @Test func theControlLogIsCompactedPastItsLimitAndTwiceTheSnapshot() {
        var policy = policy()
        policy.segmentLimit = 1000
        policy.committed([], bytes: 1000)
        #expect(!policy.wantsSnapshot)
        policy.committed([], bytes: 1)
        #expect(policy.wantsSnapshot)
        policy.beganSnapshot(nextSegment: 2, segmentBytes: 0)
        #expect(!policy.wantsSnapshot)
        #expect(policy.segment == 2)
        policy.finishedSnapshot(bytes: 800)
        policy.committed([], bytes: 1500)
        #expect(!policy.wantsSnapshot)
        policy.committed([], bytes: 101)
        #expect(policy.wantsSnapshot)
    }
}
