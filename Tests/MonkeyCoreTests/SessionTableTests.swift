import Testing

@testable import MonkeyCore

/// The session table lends each session where it lies: a free slot lends
/// nothing, a reused slot lends its new session, and what is lent is the
/// session as it is, entries and all.
struct SessionTableTests {
    static func scheduled(_ name: String, epoch: UInt64, entries: Int) throws -> Engine.ScheduledSession {
        var session = Session(name: try sessionName(name), settings: .defaults, retention: 100, epoch: epoch)
        for index in 0..<entries { _ = session.absorb(text: "text \(index)", isHit: false) }
        return Engine.ScheduledSession(session: session, odds: nil)
    }

    @Test func readLendsTheSessionInItsSlotAndNothingForAFreeSlot() throws {
        var table = SessionTable()
        for (index, name) in ["a", "b", "c"].enumerated() {
            table[try sessionName(name)] = try Self.scheduled(name, epoch: UInt64(index + 1), entries: index * 10)
        }
        let slotOfB = try #require(table.slot(of: try sessionName("b")))
        #expect(table.read(slot: slotOfB) { $0.session.log.count } == 10)
        #expect(table.read(slot: slotOfB) { $0.session.log.newest?.text } == "text 9")
        table[try sessionName("b")] = nil
        #expect(table.read(slot: slotOfB) { $0.session.name } == nil)
        #expect(table.read(slot: table.slotCount) { $0.session.name } == nil)
        // The freed slot is reused, and lends the new session.
        table[try sessionName("d")] = try Self.scheduled("d", epoch: 9, entries: 3)
        #expect(table.slot(of: try sessionName("d")) == slotOfB)
        #expect(table.read(slot: slotOfB) { $0.session.name.text } == "d")
        #expect(table.read(slot: slotOfB) { $0.session.epoch } == 9)
        #expect(table.read(slot: slotOfB) { $0.session.log.newest?.text } == "text 2")
        let total = table.reduce(0) { total, session in total += session.log.count }
        #expect(total == 0 + 20 + 3)
    }
}
