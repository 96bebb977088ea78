/// The newest `capacity` events of the stream, oldest first, and the id
/// the next one gets. Ids increase by one with each event; the ids of
/// events dropped (retention) or lost (a crash) are never given again.
public struct EventLog: Sendable {
    private var events: [EventRecord] = []
    /// Events before this index have been dropped; removed in bulk.
    private var start = 0
    public private(set) var capacity: Int
    public private(set) var nextID: UInt64

    public init(capacity: Int, nextID: UInt64, restoring restored: [EventRecord] = []) {
        precondition(capacity > 0, "a log holds at least one event")
        self.capacity = capacity
        self.nextID = max(nextID, (restored.last?.id ?? 0) + 1)
        events = Array(restored.suffix(capacity))
    }

    public var count: Int { events.count - start }
    public var isEmpty: Bool { count == 0 }
    public var oldest: EventRecord? { isEmpty ? nil : events[start] }
    public var newest: EventRecord? { isEmpty ? nil : events.last }

    /// The event at `position`, 0 being the oldest retained.
    public subscript(position: Int) -> EventRecord { events[start + position] }

    /// Records the event's record of `kind` with the next id and `time`,
    /// and drops the oldest past the capacity. The record is not returned:
    /// most have no reader yet, and a copy costs a retain of each of its
    /// parts (`newest` reads it when one does).
    public mutating func append(_ event: Event, as kind: EventRecord.Kind, of session: SessionName, time: UInt64) {
        events.append(EventRecord(id: nextID, time: time, kind: kind, session: session, content: .event(event.payload)))
        nextID += 1
        dropBeyondCapacity()
    }

    /// Ids below `id` may have been handed out before a crash: the next
    /// event gets at least `id`.
    public mutating func setCapacity(_ capacity: Int) {
        precondition(capacity > 0, "a log holds at least one event")
        self.capacity = capacity
        dropBeyondCapacity()
    }

    /// The position of the first event with an id greater than `id`.
    public func position(afterID id: UInt64) -> Int {
        (0..<count).partitionPoint { self[$0].id > id }
    }

    /// Every retained event, oldest first (for writing them to disk).
    public var retained: ArraySlice<EventRecord> { events[start...] }

    private mutating func dropBeyondCapacity() {
        guard count > capacity else { return }
        start += count - capacity
        if start >= 1024 && start * 2 >= events.count {
            events.removeFirst(start)
            start = 0
        }
    }
}

/// An EVENTS response being written as the client reads it: the retained
/// events after a cursor, then new ones as they happen.
public struct EventCursor: Sendable, Equatable {
    /// Events up to this id are written (or were before the client came).
    public var lastID: UInt64
    /// Only events of sessions this matches.
    public let session: SessionPattern?
    /// Ids skipped at the start because they are older than what is kept,
    /// reported once in a `lost` record.
    public var lostAtStart: UInt64 = 0

    public init(lastID: UInt64, session: SessionPattern?) {
        self.lastID = lastID
        self.session = session
    }

    /// The cursor of an EVENTS request: after `after`, or after the newest
    /// event for a client that wants only new ones.
    public static func start(_ query: EventsQuery, in log: EventLog) -> EventCursor {
        guard let after = query.after else {
            return EventCursor(lastID: log.nextID - 1, session: query.session)
        }
        var cursor = EventCursor(lastID: after, session: query.session)
        if let oldest = log.oldest, after + 1 < oldest.id {
            cursor.lostAtStart = oldest.id - after - 1
        } else if log.isEmpty, after + 1 < log.nextID {
            cursor.lostAtStart = log.nextID - after - 1
        }
        return cursor
    }

    public func wants(_ event: EventRecord) -> Bool {
        event.id > lastID && (session?.matches(event.session) ?? true)
    }

    /// Writes the events after the cursor until `output` holds `byteLimit`
    /// bytes; true once it has caught up with the log.
    public mutating func fill(from log: EventLog, into output: inout [UInt8], byteLimit: Int) -> Bool {
        if lostAtStart > 0 {
            ResponseEncoder.append(FollowerBacklog.lostRecord(lostAtStart), to: &output)
            lostAtStart = 0
        }
        var position = log.position(afterID: lastID)
        while position < log.count {
            if output.count >= byteLimit { return false }
            let event = log[position]
            if session?.matches(event.session) ?? true { event.append(to: &output) }
            lastID = event.id
            position += 1
        }
        return true
    }
}
