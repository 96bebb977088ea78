/// What the engine answers to one request: data lines, a status line, or a
/// stream of entries whose status comes when it ends; plus what the daemon
/// must do for it: make a change durable, log events, end followers.
public struct Reply: Sendable {
    public var records: [Record] = []
    /// Nil while a stream is still to be written.
    public var status: Status?
    public var stream: LogStream?
    /// STATUS of every session, written as the client reads it: with
    /// thousands of sessions it is megabytes, more than a connection may
    /// hold at once.
    public var listing: SessionListing?
    /// METRICS: the daemon's own families, then every session's, written
    /// as the client reads them.
    public var metrics: MetricsListing?
    public var closesConnection = false
    /// The change of state to make durable before the status line is sent;
    /// nil for requests that change nothing.
    public var change: Change?
    /// Events to log once the change is durable.
    public var events: [Event] = []
    /// A session whose followers end, with this status, once the change is durable.
    public var endsFollowers: (session: SessionName, status: Status)?

    public init(status: Status?) {
        self.status = status
    }

    /// The code of an `ERR` status; nil for `OK` or a stream still to be written.
    public var errorCode: ErrorCode? {
        if case .error(let error) = status { return error.code }
        return nil
    }

    static func error(_ code: ErrorCode, _ message: String) -> Reply {
        Reply(status: .error(ProtocolError(code, message)))
    }
}

/// A LOG or TAIL response being written as the client reads it, so that a
/// large log never sits in memory twice.
public struct LogStream: Sendable, Equatable {
    public let session: SessionName
    /// Entries with a greater id are still to be written.
    public var lastID: UInt64
    /// The newest entry LOG returns; nil for TAIL, which then follows.
    public let throughID: UInt64?

    public var isFollowing: Bool { throughID == nil }

    public enum Progress: Sendable, Equatable {
        /// The byte budget ran out first; call again when the client has read.
        case more
        /// Every selected entry is written (for TAIL: caught up with typing).
        case finished
        case sessionGone
    }
}

/// A STATUS of every session being written as the client reads it, in
/// name order.
public struct SessionListing: Sendable, Equatable {
    /// Sessions with a greater name are still to be written.
    public var afterName: SessionName?

    public init(afterName: SessionName? = nil) {
        self.afterName = afterName
    }
}
