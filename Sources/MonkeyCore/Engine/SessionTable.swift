/// The engine's sessions, by name and by slot: the names index a dense
/// array, so that the tick path reaches a session through its slot number
/// without hashing its name, and the scheduler's heap holds plain integers.
///
/// A slot freed by a deleted session is reused; heap items that still name
/// it are told apart by their due time (see `due(ofSlot:)`).
struct SessionTable {
    private var slotOf: [SessionName: Int] = [:]
    private var slots: [Engine.ScheduledSession?] = []
    private var freeSlots: [Int] = []

    var count: Int { slotOf.count }
    var keys: Dictionary<SessionName, Int>.Keys { slotOf.keys }
    var values: [Engine.ScheduledSession] { slots.compactMap { $0 } }

    func slot(of name: SessionName) -> Int? { slotOf[name] }

    subscript(name: SessionName) -> Engine.ScheduledSession? {
        get { slotOf[name].flatMap { slots[$0] } }
        set {
            if let slot = slotOf[name] {
                slots[slot] = newValue
                if newValue == nil {
                    slotOf[name] = nil
                    freeSlots.append(slot)
                }
            } else if let newValue {
                let slot = freeSlots.popLast() ?? slots.count
                if slot == slots.count { slots.append(newValue) } else { slots[slot] = newValue }
                slotOf[name] = slot
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
        slot < slots.count ? slots[slot]?.due : nil
    }

    /// Mutates the session in `slot` in place (the tick path: no copy of its log).
    mutating func withSession<Result>(inSlot slot: Int, _ body: (inout Engine.ScheduledSession) -> Result) -> Result? {
        guard slot < slots.count else { return nil }
        // Optional chaining mutates the element where it lies.
        return slots[slot]?.modify(body)
    }
}

extension Engine.ScheduledSession {
    fileprivate mutating func modify<Result>(_ body: (inout Self) -> Result) -> Result { body(&self) }
}
