import MonkeyCore

/// Where a group of changes is made durable: the store's control log
/// (`FileStore`), or a fake one in tests.
protocol ChangeLog: AnyObject {
    /// Makes the changes durable together, reading each session's state
    /// as it is now: durable when this returns.
    func commit(_ effects: [Effect], state: (SessionName) -> SessionSnapshot?) throws(StorageError)
}

/// Changes applied in memory and answered, held until they are durable
/// together: every change read in one pass of the loop is made durable
/// with one write and one sync before any of their `OK`s is sent. No tick
/// runs between a change and its commit (the end of the pass commits, and
/// ticks come after it), so the state written is the state answered.
struct GroupCommit {
    /// A change applied in memory and answered, waiting for its commit.
    struct PendingChange {
        let connection: Connection
        let verb: Verb
        let change: Change
        let event: Event?
        let endsFollowers: (session: SessionName, status: Status)?
        /// Where its status line lies in the connection's output.
        let status: Range<Int>
    }

    /// A group taken for a commit, and whether the disk took it.
    struct Group {
        fileprivate(set) var changes: [PendingChange]
        fileprivate(set) var isCommitted = false
    }

    private var pending: [PendingChange] = []
    /// The last group's array, emptied, for the next: a pass of 100
    /// changes would otherwise grow a new one 8 times.
    private var spare: [PendingChange] = []

    var isEmpty: Bool { pending.isEmpty }

    /// Holds a reply's change until the commit: its status line is
    /// written now, in order, and held back (`OutputBuffer.hold`); the
    /// requests after it are answered meanwhile, their answers held behind
    /// it. The reply's event and the followers it ends are moved out of it.
    mutating func hold(_ change: Change, of reply: inout Reply, verb: Verb, on connection: Connection) {
        let start = connection.output.end
        if let status = reply.status { connection.appendStatus(status) }
        connection.output.hold(from: start)
        pending.append(
            PendingChange(
                // Moved out of the reply, not copied and then freed with it.
                connection: connection, verb: verb, change: change, event: reply.event.take(),
                endsFollowers: reply.endsFollowers.take(), status: start..<connection.output.end))
    }

    /// Makes every held change durable with one write and one sync, then
    /// releases their answers; if the disk refuses, takes them all back,
    /// newest first, and rewrites each held answer as `ERR storage-error`.
    /// Each request is counted with its result. What follows from a
    /// committed group (followers a DELETE ends, the events) is the
    /// caller's, from the group returned; hand it back with `recycle`.
    mutating func commit(to log: some ChangeLog, engine: inout Engine, counts: inout RequestCounts) -> Group {
        var group = Group(changes: pending)
        pending = spare
        spare = []
        do {
            try log.commit(group.changes.map(\.change.effect)) { engine.snapshot(of: $0) }
            group.isCommitted = true
            // By index: a loop over the elements copies each change whole.
            for index in group.changes.indices { counts.note(group.changes[index].verb, nil) }
        } catch {
            for pending in group.changes.reversed() {
                let refusal = engine.revert(pending.change, because: error)
                counts.note(pending.verb, refusal.errorCode)
                var line: [UInt8] = []
                if let status = refusal.status { ResponseEncoder.append(status, to: &line) }
                pending.connection.output.replace(pending.status, with: line)
            }
        }
        for index in group.changes.indices { group.changes[index].connection.output.release() }
        return group
    }

    /// The group's array, emptied, for the next group; not the array of
    /// a storm of thousands, kept for ever.
    mutating func recycle(_ group: consuming Group) {
        // Moved out, not copied: emptying a shared array would allocate anew.
        var changes: [PendingChange] = []
        swap(&changes, &group.changes)
        guard changes.capacity <= 1024 else { return }
        changes.removeAll(keepingCapacity: true)
        spare = changes
    }
}

extension FileStore: ChangeLog {}
