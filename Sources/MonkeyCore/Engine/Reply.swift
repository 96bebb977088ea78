/// What the engine answers to one request: data lines, a status line, or a
/// stream of entries whose status comes when it ends; plus what the daemon
/// must do for it: make a change durable, log events, end followers.
public struct Reply: Sendable {
    public var records: [Record] = []
    /// Nil while a stream is still to be written.
    public var status: Status?
    /// What the connection goes on with after the records, if anything.
    public var continuation: Continuation?
    public var closesConnection = false
    /// The change of state to make durable before the status line is sent;
    /// nil for requests that change nothing.
    public var change: Change?
    /// The event to log once the change is durable: a change makes one.
    /// Not an array: that was an allocation for every change.
    public var event: Event?
    /// A session whose followers end, with this status, once the change is durable.
    public var endsFollowers: (session: SessionName, status: Status)?

    /// What a reply starts that lasts beyond its records: at most one.
    public enum Continuation: Sendable {
        /// LOG or TAIL of one session.
        case replay(LogStream)
        /// STATUS of every session, written as the client reads it: with
        /// thousands of sessions it is megabytes, more than a connection
        /// may hold at once.
        case listing(SessionListing)
        /// METRICS: the daemon's own families, then every session's,
        /// written as the client reads them.
        case metrics(MetricsListing)
        /// LOG or TAIL of several sessions or a glob (boxed: it is the
        /// largest, and the rarest).
        indirect case tail(TailStream)
        /// EVENTS: the daemon streams its event log from this query.
        case events(EventsQuery)
        /// WAIT whose condition is not met yet.
        case wait(WaitRequest)
    }

    public var stream: LogStream? {
        if case .replay(let stream) = continuation { stream } else { nil }
    }
    public var listing: SessionListing? {
        if case .listing(let listing) = continuation { listing } else { nil }
    }
    public var metrics: MetricsListing? {
        if case .metrics(let metrics) = continuation { metrics } else { nil }
    }
    public var tail: TailStream? {
        if case .tail(let tail) = continuation { tail } else { nil }
    }
    public var eventStream: EventsQuery? {
        if case .events(let query) = continuation { query } else { nil }
    }
    public var wait: WaitRequest? {
        if case .wait(let wait) = continuation { wait } else { nil }
    }

    public init(status: Status?) {
        self.status = status
    }

    /// The events to log: none, or the change's.
    public var events: [Event] { event.map { [$0] } ?? [] }

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
    /// The names in order with their slots, sorted once for the whole
    /// listing (it is written a part at a time as the client reads), and
    /// again only when sessions were added or removed meanwhile
    /// (`generation`).
    var sessions: [SessionTable.NamedSlot] = []
    var generation: UInt64?

    public init(afterName: SessionName? = nil) {
        self.afterName = afterName
    }

    init(sessions: [SessionTable.NamedSlot], generation: UInt64) {
        self.sessions = sessions
        self.generation = generation
    }
}

/// A LOG or TAIL of several sessions, or of a glob, being replayed: each
/// session's entries in name order; for TAIL then what the others typed
/// meanwhile, then following them all (and sessions the globs match later).
public struct TailStream: Sendable, Equatable {
    public let patterns: [SessionPattern]
    /// Each session's last entries replayed (nil: its retained log).
    public let last: Int?
    /// TAIL follows once caught up; LOG ends.
    public let follows: Bool
    /// Sessions still to replay; the first is being replayed.
    public var pending: [SessionName]
    /// The session being replayed, and where it stands.
    public var current: LogStream?
    /// The newest id written of each session replayed.
    public var written: [SessionName: UInt64] = [:]

    public enum Progress: Sendable, Equatable {
        /// The byte budget ran out first.
        case more
        /// Every session is replayed and caught up: follow these.
        case finished(following: [SessionName])
    }
}

/// A WAIT whose condition is not met yet: the daemon waits for the events
/// that meet it, or the timeout.
public struct WaitRequest: Sendable, Equatable {
    public let session: SessionName
    public let condition: WaitCondition
    public let timeout: Interval?
}
