import Dispatch
import Foundation
import MonkeyCore
import Testing

@testable import MonkeyDaemon

/// The store with real files, driven in-process at simulated times: an id
/// is never handed out before the control log reserves it, so that a crash
/// can never give it again, and reservations are renewed at syncs before
/// they run out (a reservation covers about a minute of typing, too long
/// for the daemon in real time).
@Suite("Id reservations while typing")
struct ReservationRenewalTests {
    static let second = Interval(nanoseconds: 1_000_000_000)

    @Test func idsTypedNeverPassTheReservationOnDiskAndRenewalsComeAtSyncs() throws {
        let directory = TemporaryDirectory()
        // Retention far above what is typed: no compaction looks at the session on the way.
        var limits = Limits()
        limits.maximumEntries = 1_000_000
        let store = try FileStore(
            directory: directory.path, syncInterval: Self.second, journalLimit: 64 << 20,
            retention: limits.maximumEntries
        ) { _, _ in }
        var engine = Engine(limits: limits, seed: 7)
        let request = try #require(try RequestParser(limits: limits).parse("START s interval=1ms"))
        let admin = Peer(uid: 0, pid: 1, mayChange: true)
        let reply = engine.handle(request, from: admin, now: 0)
        #expect(reply.status == .ok("started s"))
        try store.commit([try #require(reply.change).effect]) { engine.snapshot(of: $0) }
        let name = try #require(SessionName("s"))
        let syncs = DispatchQueue(label: "syncs")
        let ahead = StoredSession.reservationSize(interval: Interval(nanoseconds: 1_000_000), syncInterval: Self.second)

        var now: UInt64 = 0
        var typed: [TypedEntry] = []
        // 150 simulated seconds at 1 ms: past the first reservation twice over.
        for second in 1...150 {
            for _ in 0..<1000 {
                now += 1_000_000
                typed.removeAll()
                _ = engine.runDueTicks(now: now, into: &typed)
                // What the daemon does with them (Daemon+Typing.swift).
                for item in typed {
                    if !item.needsAttention {
                        store.record(item)
                    } else if let session = engine.session(named: item.session) {
                        engine.setAttention(item.session, store.append(item, of: session))
                    }
                }
            }
            let typedThrough = try #require(engine.session(named: name)).nextID - 1
            let reservedBefore = try reservedOnDisk(directory, name)
            #expect(typedThrough < reservedBefore, "second \(second): typed through \(typedThrough)")

            let synced = DispatchSemaphore(value: 0)
            store.sync(events: EventLog(capacity: 10, nextID: 1), replyingOn: syncs) { synced.signal() }
            synced.wait()
            // A renewal is asked for at half the reservation and written at
            // the next sync: never down to the last ids, waiting for the disk.
            // Signed: a reservation behind the typing fails the expectation
            // with its figures rather than trapping the whole test run.
            let reservedAfter = try reservedOnDisk(directory, name)
            #expect(
                Int64(reservedAfter) - Int64(typedThrough) > Int64(ahead / 2) - 1000,
                "second \(second): typed through \(typedThrough), reserved \(reservedBefore) then \(reservedAfter)")
        }
        #expect(try #require(engine.session(named: name)).nextID > 2 * ahead)
    }

    /// How far the control log on disk reserves the session's ids.
    func reservedOnDisk(_ directory: TemporaryDirectory, _ name: SessionName) throws -> UInt64 {
        var state = ControlState()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for file in names.filter({ $0.hasPrefix("control.") }).sorted() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(directory.path)/\(file)")))
            for record in ControlFile.decodeLog(bytes).records { state.apply(record) }
        }
        return state.sessions[name]?.reservedID ?? 0
    }
}
