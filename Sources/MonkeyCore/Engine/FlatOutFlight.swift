/// A flat-out session's batches on the typing threads. Several may be in
/// flight at once (one session keeps every typing thread busy), each
/// typed from ids reserved when its job was made, following the one made
/// before it; none of those ids is given until its batch is merged, and
/// batches merge strictly in the order their jobs were made, so ids and
/// numbers follow typing order. A batch that comes back before an older
/// one waits here. A batch found stale (a change came while it was in
/// flight) ends the flight: it and every batch after it are discarded,
/// and the next job starts again from the session's next id.
struct FlatOutFlight: Sendable {
    /// The tickets of the batches in flight, oldest first.
    private(set) var tickets: [PoolJob.Ticket] = []
    /// The first id of the next job, while batches are in flight.
    private var reservedID: UInt64 = 0
    /// Batches that came back before an older one, by ticket.
    private var early: [UInt64: Returned] = [:]

    /// A batch as it came back from a typing thread, with its job's ticket.
    struct Returned: Sendable {
        let batch: TypedBatch
        let matches: CorpusMatches?
        let ticket: PoolJob.Ticket
    }

    var count: Int { tickets.count }

    /// The first id of the next job of a session whose next id is `nextID`.
    func firstID(after nextID: UInt64) -> UInt64 {
        tickets.isEmpty ? nextID : reservedID
    }

    /// A job was made: ticket `ticket`, ids from `firstID`, `count` of them.
    mutating func launch(_ ticket: PoolJob.Ticket, firstID: UInt64, count: Int) {
        tickets.append(ticket)
        reservedID = firstID &+ UInt64(count)
    }

    /// A batch came back. The oldest is answered at once (taken out of the
    /// flight); a younger one of this flight waits, and nil is answered;
    /// one of an ended flight is answered nil and dropped.
    mutating func land(_ returned: Returned) -> Returned? {
        let number = returned.ticket.number
        guard let position = tickets.firstIndex(where: { $0.number == number }) else { return nil }
        guard position == 0 else {
            early[number] = returned
            return nil
        }
        tickets.removeFirst()
        return returned
    }

    /// The next batch in order, if it came back already (taken out).
    mutating func nextWaiting() -> Returned? {
        guard let ticket = tickets.first, let returned = early.removeValue(forKey: ticket.number) else { return nil }
        tickets.removeFirst()
        return returned
    }

    /// Whether the batches in flight were made for a session with these
    /// settings and epoch: a job made after a change would only be
    /// discarded with them.
    func isFor(epoch: UInt64, settings: SessionSettings) -> Bool {
        guard let last = tickets.last else { return true }
        return last.epoch == epoch && last.settings == settings
    }

    /// Every batch in flight is discarded: a change won.
    mutating func end() {
        tickets.removeAll()
        early.removeAll()
    }
}
