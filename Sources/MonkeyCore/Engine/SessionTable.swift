internal import CPrefetch

/// The engine's sessions, by name and by slot: the names index a dense
/// array, so that the tick path reaches a session through its slot number
/// without hashing its name, and the scheduler's heap holds plain integers.
///
/// Due times live in an array of their own beside the sessions: the tick
/// path checks many heap items against them, and eight bytes a session stay
/// in cache where whole sessions would not.
///
/// A slot freed by a deleted session is reused; heap items that still name
/// it are told apart by their due time (see `due(ofSlot:)`).
struct SessionTable {
    private var slotOf: [SessionName: Int] = [:]
    private var slots: [Engine.ScheduledSession?] = []
    /// When the session in each slot is next due; nil while it does not type.
    private var dues: [UInt64?] = []
    /// When the session in each slot was put there, counted in insertions
    /// (see `insertions`).
    private var insertedAt: [UInt64] = []
    private var freeSlots: [Int] = []
    /// Sessions put into the table so far: a clock that tells a session
    /// created after some moment from one that was there before.
    private(set) var insertions: UInt64 = 0
    /// Counts the sessions added and removed: while it stays, so do the
    /// names (what a STATUS of every session keeps its sorted names by).
    private(set) var generation: UInt64 = 0

    var count: Int { slotOf.count }

    /// Every session's name and slot, by name: slots stay with their
    /// sessions for as long as `generation` does.
    var sortedSlots: [NamedSlot] {
        slotOf.map { NamedSlot(name: $0.key, slot: $0.value) }.sorted { $0.name < $1.name }
    }

    struct NamedSlot: Sendable, Equatable {
        let name: SessionName
        let slot: Int
    }
    var keys: Dictionary<SessionName, Int>.Keys { slotOf.keys }

    func slot(of name: SessionName) -> Int? { slotOf[name] }

    subscript(name: SessionName) -> Engine.ScheduledSession? {
        get { slotOf[name].flatMap { slots[$0] } }
        set {
            if let slot = slotOf[name] {
                slots[slot] = newValue
                if newValue == nil {
                    slotOf[name] = nil
                    dues[slot] = nil
                    freeSlots.append(slot)
                    generation &+= 1
                }
            } else if let newValue {
                let slot = freeSlots.popLast() ?? slots.count
                insertions += 1
                if slot == slots.count {
                    slots.append(newValue)
                    dues.append(nil)
                    insertedAt.append(insertions)
                } else {
                    slots[slot] = newValue
                    insertedAt[slot] = insertions
                }
                slotOf[name] = slot
                generation &+= 1
            }
        }
    }

    subscript(name: SessionName, default defaultValue: @autoclosure () -> Engine.ScheduledSession)
        -> Engine.ScheduledSession
    {
        get { self[name] ?? defaultValue() }
        set { self[name] = newValue }
    }

    /// When the session in `slot` is next due; nil if it is not typing or the slot is free.
    func due(ofSlot slot: Int) -> UInt64? {
        slot < dues.count ? dues[slot] : nil
    }

    /// Sets when the session in `slot` is next due (nil: not at all).
    mutating func setDue(_ due: UInt64?, ofSlot slot: Int) {
        dues[slot] = due
    }

    /// The session in `slot`, if the slot holds one.
    func scheduled(inSlot slot: Int) -> Engine.ScheduledSession? {
        slot < slots.count ? slots[slot] : nil
    }

    /// Slots in use or free: every session's slot is below this.
    var slotCount: Int { slots.count }

    /// Reads the session in `slot` where it lies; nil for a free slot, or
    /// for a session put there after `insertions` had reached `insertedBy`.
    func read<Result>(
        slot: Int, insertedBy: UInt64 = .max, _ body: (borrowing Engine.ScheduledSession) -> Result
    ) -> Result? {
        guard slot < slots.count, insertedAt[slot] <= insertedBy else { return nil }
        return borrow(slot, body)
    }

    /// Lends the session in `slot` (below `slots.count`) where it lies;
    /// nil for a free slot. Through the element's address, not Array's
    /// getter: the getter (or an optional's payload) copies the whole
    /// session, about 1 KiB and a retain and a release for each reference
    /// it holds. That was most of the time of a scrape of 10,000 sessions.
    /// Lent through the optional, it was still copied bitwise (1,296
    /// bytes), so the payload is lent as the session itself: a session's
    /// optional is the session with `nil` in spare bits, one size.
    /// `body` only borrows, so nothing is written.
    private func borrow<Result>(_ slot: Int, _ body: (borrowing Engine.ScheduledSession) -> Result) -> Result? {
        precondition(
            MemoryLayout<Engine.ScheduledSession?>.size == MemoryLayout<Engine.ScheduledSession>.size,
            "a session's optional keeps nil in the session's spare bits")
        return slots.withUnsafeBufferPointer { buffer in
            let element = buffer.baseAddress.unsafelyUnwrapped + slot
            guard element.pointee != nil else { return nil }
            // Lent as `inout`, which passes its address: passed as a value, it was copied.
            return UnsafeMutableRawPointer(mutating: element).withMemoryRebound(
                to: Engine.ScheduledSession.self, capacity: 1
            ) { $0.pointee.modify { body($0) } }
        }
    }

    /// Mutates the session in `slot` in place (no copy of its log); nil for a free slot.
    mutating func withSession<Result>(inSlot slot: Int, _ body: (inout Engine.ScheduledSession) -> Result) -> Result? {
        withSession(inSlot: slot, prefetching: nil, andBeyond: nil, body)
    }

    /// The tick path's one access to the table for a session: starts
    /// bringing the session in `ahead` into the caches (its hot bytes) and
    /// what the next tick of the one in `next` reaches beyond it
    /// (`EntryLog.prefetchForNextAppend`), then mutates the session in
    /// `slot` in place; nil for a free slot. One access through the slots'
    /// address: three (two lends and Array's `modify`) retained and
    /// released the slots' storage at every tick.
    mutating func withSession<Result>(
        inSlot slot: Int, prefetching ahead: Int?, andBeyond next: Int?,
        _ body: (inout Engine.ScheduledSession) -> Result
    ) -> Result? {
        guard slot < slots.count else { return nil }
        let hotBytes = hotBytes
        return slots.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress.unsafelyUnwrapped
            if let ahead, ahead < buffer.count {
                Self.prefetch(base + ahead, hotBytes: hotBytes, skipping: fillingSlots)
            }
            // Optional chaining on the element where it lies tests its tag
            // in place: reading the optional to test it copied the session.
            if let next, next < buffer.count { base[next]?.prefetchLogForNextAppend(slotsAt: fillingSlots) }
            return base[slot]?.modify(body)
        }
    }

    /// Starts bringing every line of a session's hot bytes into the caches,
    /// so that the tick that reaches it a little later does not wait for
    /// memory: with 10,000 sessions ticking at 10 Hz, every one has left
    /// the caches by its next tick, and a tick touches most of its lines.
    /// All but the lines only the slots of its log's filling chunk take
    /// (`skipping`): a tick writes one slot, brought in a tick ahead
    /// (`prefetchLogForNextAppend(slotsAt:)`). Bringing in all of them,
    /// two or three lines of ten that seven ticks in eight do not touch,
    /// cost the daemon 4 % more CPU between folds with 10,000 sessions.
    private static func prefetch(
        _ element: UnsafeMutablePointer<Engine.ScheduledSession?>, hotBytes: Int, skipping slots: Range<Int>
    ) {
        // Every line the hot bytes touch (slots do not start on a line) up
        // to the first that only the slots take, then on from the last.
        let start = Int(bitPattern: element)
        var line = start & ~63
        let skipped = (start &+ slots.lowerBound &+ 63) & ~63
        while line < skipped {
            monkey_prefetch_for_writing(UnsafeRawPointer(bitPattern: line))
            line &+= 64
        }
        line = (start &+ slots.upperBound) & ~63
        while line < start &+ hotBytes {
            monkey_prefetch_for_writing(UnsafeRawPointer(bitPattern: line))
            line &+= 64
        }
    }

    /// The leading bytes of a session that a timed tick reaches: up to its
    /// odds, the first of the fields it does not (see `ScheduledSession`).
    /// Bringing in the rest (a corpus run alone is 552 bytes) took the
    /// memory's attention from the lines the ticks wait for. Held by the
    /// table: a static is initialised lazily, checked at every use.
    private let hotBytes =
        MemoryLayout<Engine.ScheduledSession>.offset(of: \Engine.ScheduledSession.odds)
        ?? MemoryLayout<Engine.ScheduledSession>.size

    /// Where the slots of a session's filling chunk lie in it (`EntryLog.fillingSlots`).
    private let fillingSlots: Range<Int> = {
        guard let log = MemoryLayout<Engine.ScheduledSession>.offset(of: \Engine.ScheduledSession.session.log) else {
            preconditionFailure("a stored property has an offset")
        }
        let slots = EntryLog.fillingSlots
        return (log + slots.lowerBound)..<(log + slots.upperBound)
    }()

    /// Mutates every session in place.
    mutating func modifyEach(_ body: (inout Engine.ScheduledSession) -> Void) {
        for slot in slots.indices { slots[slot]?.modify(body) }
    }

    /// Adds up something over every session, reading each where it lies.
    func reduce<Total>(_ initial: Total, _ add: (inout Total, borrowing Session) -> Void) -> Total {
        var total = initial
        for slot in slots.indices { _ = borrow(slot) { add(&total, $0.session) } }
        return total
    }
}

extension Engine.ScheduledSession {
    fileprivate mutating func modify<Result>(_ body: (inout Self) -> Result) -> Result { body(&self) }

    /// `EntryLog.prefetchForNextAppend`, and the slot of the log's filling
    /// chunk the next append writes (its slots at `slotsAt` in the
    /// session), or all of them when it moves the chunk first; called on
    /// the session where it lies: mutating only so that it is passed by
    /// address, not copied.
    fileprivate mutating func prefetchLogForNextAppend(slotsAt slots: Range<Int>) {
        session.log.prefetchForNextAppend()
        let slot = session.log.nextSlot
        withUnsafeMutableBytes(of: &self) { session in
            guard let base = session.baseAddress else { return }
            guard let slot else {
                // Every slot is read: the lines of all of them.
                for offset in stride(from: slots.lowerBound, to: slots.upperBound &+ 63, by: 64) {
                    monkey_prefetch_for_writing(base + min(offset, slots.upperBound &- 1))
                }
                return
            }
            // A slot may cross a line: its first and its last byte.
            let first = base + (slots.lowerBound &+ slot &* MemoryLayout<PackedEntry>.stride)
            monkey_prefetch_for_writing(first)
            monkey_prefetch_for_writing(first + (MemoryLayout<PackedEntry>.stride - 1))
        }
    }
}
