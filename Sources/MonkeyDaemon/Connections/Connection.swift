import MonkeyCore

/// One client of the daemon: its framer, queued output and what it is
/// doing (`phase`). Owned and touched only by the daemon's queue.
final class Connection {
    let fd: Int32
    let token: UInt64
    let peer: Peer
    var framer: LineFramer
    var output = OutputBuffer()
    var phase = Phase.requests
    /// Bytes read but not yet framed, because a response ahead of them is
    /// still being written. Kept raw and cut one line at a time, so that
    /// pipelined requests cost at most one read's worth of memory; nothing
    /// more is read until they are used up.
    private var input: [UInt8] = []
    private var inputStart = 0
    /// The client will send nothing more (end of file).
    var inputClosed = false
    /// What the poller is asked to report for it (see `interest`).
    var watched = Interest(readable: true, writable: false)
    /// Since when the client has left half a line and is waiting (for the idle timeout).
    var partialLineSince: UInt64?
    /// The round of `PassState.touch` that last queued it to be serviced,
    /// so that it is queued once however often the pass writes to it.
    var touchRound: UInt64 = 0
    /// The daemon closed it (`Daemon.close`): asked where a handler may
    /// have closed it, rather than looking its token up again.
    var isClosed = false

    /// What a connection is doing. Everything that depends on it (what the
    /// poller watches, what a line read means, what shutdown says) is
    /// derived from it in one place each; a new kind of stream is a new case.
    enum Phase {
        /// Reading requests and answering them in order.
        case requests
        /// A LOG or TAIL replay being written as the client reads; a TAIL's
        /// then follows.
        case replaying(LogStream)
        /// A STATUS of every session being written as the client reads.
        case listing(SessionListing)
        /// METRICS being written as the client reads.
        case reportingMetrics(MetricsListing)
        /// A TAIL of several sessions or globs being replayed (then followed).
        case tailing(TailStream)
        /// A TAIL caught up with typing: new entries are written as they
        /// are typed, until the client sends a line or hangs up.
        case following(Following)
        /// EVENTS: the retained events after a cursor, then new ones as
        /// they happen, until the client sends a line or hangs up.
        case streamingEvents(EventStreaming)
        /// WAIT: until an event meets the condition, or the timeout.
        case waiting(Waiting)
        /// A START or SET naming a corpus, whose files are read and indexed
        /// off the queue (`CorpusBuilder`); it is answered when they are.
        case buildingCorpus(Request)
        /// Closing once what is queued is written (QUIT, busy, shutdown).
        case closing
        /// A client of the metrics listener: one HTTP request and its
        /// answer (see `HTTPExchange`). Such a connection stays in this
        /// phase until it is closed.
        case http(HTTPExchange)
    }

    /// A live TAIL.
    struct Following {
        enum Scope {
            /// One session named alone: the TAIL ends with an error if it is
            /// deleted. Entries up to `afterID` are not sent (TAIL after=
            /// beyond the newest entry).
            case single(SessionName, afterID: UInt64)
            /// Several sessions or globs: a deleted one is reported and
            /// dropped, and sessions the globs match later are followed too
            /// (which sessions it follows now, `Subscriptions` knows).
            case several(patterns: [SessionPattern])
        }

        var scope: Scope
        var backlog: FollowerBacklog
        /// When new entries were last written (see `TickPlan.writesFollowerNow`).
        var lastWrite: UInt64 = 0
    }

    /// An EVENTS stream.
    struct EventStreaming {
        var cursor: EventCursor
        var backlog: FollowerBacklog
        /// Caught up with the log: new events are written as they happen.
        var isLive = false
    }

    /// A WAIT.
    struct Waiting {
        let session: SessionName
        let condition: WaitCondition
        /// On the monotonic clock; nil: no timeout.
        let deadline: UInt64?
        let timeout: Interval?
    }

    struct Interest: Equatable {
        var readable: Bool
        var writable: Bool
    }

    /// Closing or not, what a request's reply starts: its stream, listing
    /// or metrics; else the connection goes on reading requests.
    static func phase(startedBy reply: Reply) -> Phase {
        if reply.closesConnection { return .closing }
        switch reply.continuation {
        case .replay(let stream): return .replaying(stream)
        case .listing(let listing): return .listing(listing)
        case .metrics(let metrics): return .reportingMetrics(metrics)
        case .tail(let tail): return .tailing(tail)
        // EVENTS and WAIT are set up by the daemon, which owns what they read.
        case .events, .wait, nil: return .requests
        }
    }

    /// Where a replay goes after a round of writing, and the status line
    /// that ends it, if it ended: a TAIL caught up follows the session.
    static func phase(after progress: LogStream.Progress, of stream: LogStream, backlogLimit: Int)
        -> (phase: Phase, status: Status?)
    {
        switch progress {
        case .more:
            return (.replaying(stream), nil)
        case .finished where stream.isFollowing:
            let following = Following(
                scope: .single(stream.session, afterID: stream.lastID), backlog: FollowerBacklog(limit: backlogLimit))
            return (.following(following), nil)
        case .finished:
            return (.requests, .ok(nil))
        case .sessionGone:
            return (.requests, .error(ProtocolError(.noSuchSession, "session \(stream.session) was deleted")))
        }
    }

    init(fd: Int32, token: UInt64, peer: Peer, maximumLineLength: Int) {
        self.fd = fd
        self.token = token
        self.peer = peer
        self.framer = LineFramer(maximumLength: maximumLineLength)
    }

    /// A response is still being generated as the client reads: nothing
    /// else is answered meanwhile.
    var isStreaming: Bool {
        switch phase {
        case .replaying, .listing, .reportingMetrics, .tailing: true
        case .streamingEvents(let streaming): !streaming.isLive
        case .http(let exchange): exchange.isResponding
        case .requests, .following, .waiting, .buildingCorpus, .closing: false
        }
    }

    /// A client of the metrics listener.
    var isHTTP: Bool {
        if case .http = phase { return true }
        return false
    }

    /// In a TAIL or EVENTS (replaying or live): any line the client sends
    /// ends it.
    var isTailing: Bool {
        switch phase {
        case .replaying(let stream): stream.isFollowing
        case .tailing(let tail): tail.follows
        case .following, .streamingEvents: true
        case .requests, .listing, .reportingMetrics, .waiting, .buildingCorpus, .closing, .http: false
        }
    }

    /// A response is under way (a stream, a follow, a wait, a corpus being
    /// built): at shutdown it ends with `ERR shutting-down`.
    var hasResponseInProgress: Bool {
        switch phase {
        case .waiting, .buildingCorpus: true
        default: isStreaming || isTailing
        }
    }

    /// What the poller watches for, derived from the phase: readability
    /// when a line from the client would be acted on (a request, or the
    /// line that ends a TAIL) and there is room for its answer;
    /// writability while output that may be sent waits or a stream has
    /// more to generate.
    func interest(outputLimit: Int) -> Interest {
        let mayRead: Bool
        let moreToWrite: Bool
        switch phase {
        case .requests:
            mayRead = output.pendingCount < outputLimit
            // Lines still waiting after `service` gave up its turn (its round
            // limit) must bring it back: writability fires at once and does.
            moreToWrite = hasPendingInput
        case .replaying(let stream):
            mayRead = stream.isFollowing
            moreToWrite = true
        case .listing, .reportingMetrics:
            mayRead = false
            moreToWrite = true
        case .tailing(let tail):
            mayRead = tail.follows
            moreToWrite = true
        case .following:
            mayRead = true
            moreToWrite = false
        case .streamingEvents(let streaming):
            // The retained events are all written before a line ends the
            // stream: `EVENTS after=0` and an empty line print them and end.
            mayRead = streaming.isLive
            moreToWrite = !streaming.isLive
        case .waiting, .buildingCorpus:
            // Lines after a WAIT wait for its answer; a hang-up is seen all the same.
            mayRead = false
            moreToWrite = false
        case .closing:
            mayRead = false
            moreToWrite = false
        case .http(let exchange):
            (mayRead, moreToWrite) = exchange.interest
        }
        // Output held for a commit is not waited for: the commit sends it.
        // Watching writability for it would cost two epoll_ctl calls and
        // a wake-up per change.
        return Interest(
            readable: mayRead && !inputClosed && !hasPendingInput, writable: moreToWrite || output.hasSendable)
    }

    /// Read bytes not yet cut into lines.
    var hasPendingInput: Bool { inputStart < input.count }

    /// The client has sent part of a line and the daemon waits for the rest.
    var isWaitingForRestOfLine: Bool { framer.hasPartialLine && !hasPendingInput && !inputClosed }

    /// Hands the bytes read but not yet used to `body`, then drops them
    /// (an HTTP connection reads its request head whole, not in lines).
    func takePendingInput(_ body: (ArraySlice<UInt8>) -> Void) {
        guard hasPendingInput else { return }
        body(input[inputStart...])
        input.removeAll(keepingCapacity: input.capacity <= 4096)
        inputStart = 0
    }

    /// Keeps bytes just read; called only once earlier ones are used up.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        input.append(contentsOf: bytes)
    }

    /// The next complete line of the pending input, or nil once it is used up.
    /// The line is copied into `line` (see `LineFramer.nextFrame(in:from:into:)`).
    func nextFrame(into line: inout [UInt8]) -> LineFramer.Cut? {
        guard hasPendingInput else { return nil }
        let frame = input.withUnsafeBytes { raw in
            framer.nextFrame(in: raw, from: &inputStart, into: &line)
        }
        if inputStart >= input.count {
            // A large buffer is dropped so that an idle connection holds little memory.
            input.removeAll(keepingCapacity: input.capacity <= 4096)
            inputStart = 0
        }
        return frame
    }

    /// Queues a line for a follower of entries or events, or skips it when
    /// the follower is not reading, as its backlog says (`lost count=N`
    /// when it catches up). False when the line was skipped.
    func deliver(_ line: [UInt8], through backlog: inout FollowerBacklog) -> Bool {
        let delivery = backlog.deliver(length: line.count, pending: output.pendingCount)
        if let lost = delivery.reportsLost { appendLost(lost) }
        if delivery.writesLine { output.append(line) }
        return delivery.writesLine
    }

    /// `lost count=N`: lines a follower did not get.
    func appendLost(_ count: UInt64) {
        output.withBytes { ResponseEncoder.append(FollowerBacklog.lostRecord(count), to: &$0) }
    }

    /// Queues a status line.
    func appendStatus(_ status: Status) {
        output.withBytes { ResponseEncoder.append(status, to: &$0) }
    }
}
