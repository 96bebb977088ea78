/// What a pass of the loop leaves for its end (`Daemon.endOfPass`): the
/// connections it wrote to, released or ended, to be serviced there once
/// each, and whether what the timers and systemd follow may have changed.
struct PassState {
    /// Connections to service, each once (`Connection.touchRound`).
    private var touched: [Connection] = []
    /// The array of the last round, emptied, for the next.
    private var spare: [Connection] = []
    private var round: UInt64 = 1
    /// Sessions changed or typed: systemd's status may differ, and there
    /// may be something to sync.
    var changedState = false
    /// The tick timer may have to move: sessions changed or typed, or the
    /// timer fired.
    var movesTickTimer = false

    var hasTouched: Bool { !touched.isEmpty }

    /// Queues `connection` to be serviced at the end of the pass.
    mutating func touch(_ connection: Connection) {
        guard connection.touchRound != round else { return }
        connection.touchRound = round
        touched.append(connection)
    }

    /// The connections touched so far, in the order they were first
    /// touched; those touched from now on are queued again. Hand the array
    /// back with `recycle`.
    mutating func takeTouched() -> [Connection] {
        round &+= 1
        var taken = spare
        swap(&taken, &touched)
        spare = []
        return taken
    }

    mutating func recycle(_ connections: consuming [Connection]) {
        guard connections.capacity <= 1024 else { return }
        connections.removeAll(keepingCapacity: true)
        spare = connections
    }

    /// Clears the flags once the end of the pass has acted on them.
    mutating func finish() {
        changedState = false
        movesTickTimer = false
    }
}
