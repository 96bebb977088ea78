import MonkeyCore

/// One client of the daemon: its framer, queued output and what it is
/// waiting for. Owned and touched only by the daemon's queue.
final class Connection {
    let fd: Int32
    let token: UInt64
    let peer: Peer
    var framer: LineFramer
    var output = OutputBuffer()
    /// Lines read but not yet handled, because a response ahead of them is
    /// still being streamed.
    var pendingFrames: [LineFramer.Frame] = []
    /// A LOG or TAIL replay still being written.
    var stream: LogStream?
    /// Following a session live (TAIL, caught up).
    var followedSession: SessionName?
    /// Entries up to this id are not sent to the follower (TAIL after= beyond the newest entry).
    var followsAfterID: UInt64 = 0
    /// Entries skipped because the client did not read; reported in one
    /// `lost` record when it catches up.
    var lostCount: UInt64 = 0
    var isSkipping = false
    /// When new entries were last written to this follower (see `flushFollowers`).
    var lastFollowerWrite: UInt64 = 0
    /// The client will send nothing more (end of file).
    var inputClosed = false
    /// Close once the queued output is written (QUIT, busy, shutdown).
    var closeAfterFlush = false
    /// Whether the poller is asked for readability and writability.
    var interest: (readable: Bool, writable: Bool) = (true, false)
    /// When the connection last made progress on a partial line.
    var lastActivity: UInt64

    init(fd: Int32, token: UInt64, peer: Peer, maximumLineLength: Int, now: UInt64) {
        self.fd = fd
        self.token = token
        self.peer = peer
        self.framer = LineFramer(maximumLength: maximumLineLength)
        self.lastActivity = now
    }

    var isTailing: Bool { followedSession != nil || stream?.isFollowing == true }

    /// The connection waits for its current response before handling more lines.
    var isBusy: Bool { stream != nil || followedSession != nil }
}
