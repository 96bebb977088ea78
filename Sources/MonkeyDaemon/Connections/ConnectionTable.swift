/// Every open connection of the control socket and of the metrics
/// listener, by the token the poller reports it with. A connection is in
/// the table from its accept to its close, and closed once (`remove`).
struct ConnectionTable {
    private var connections: [UInt64: Connection] = [:]
    /// Tokens of connections start above the listeners' and the signalfd's
    /// (see `Daemon.PollToken`) and are never given twice.
    private var nextToken: UInt64 = 1
    /// Connections of the metrics listener among them.
    private(set) var httpCount = 0

    /// Connections of the control socket (not of the metrics listener).
    var controlCount: Int { connections.count - httpCount }

    subscript(token: UInt64) -> Connection? { connections[token] }

    /// Every open connection, in no order.
    var all: [Connection] { Array(connections.values) }

    /// A token for a new connection.
    mutating func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    mutating func insert(_ connection: Connection) {
        connections[connection.token] = connection
        if connection.isHTTP { httpCount += 1 }
    }

    /// Takes the connection out and marks it closed; false if it was
    /// already (a handler may close what another closed).
    mutating func remove(_ connection: Connection) -> Bool {
        guard connections.removeValue(forKey: connection.token) != nil else { return false }
        connection.isClosed = true
        if connection.isHTTP { httpCount -= 1 }
        return true
    }
}
