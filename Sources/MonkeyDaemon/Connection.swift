import MonkeyCore

/// One client of the daemon: its framer, queued output and what it is
/// waiting for. Owned and touched only by the daemon's queue.
final class Connection {
    let fd: Int32
    let token: UInt64
    let peer: Peer
    var framer: LineFramer
    var output = OutputBuffer()
    /// Bytes read but not yet framed, because a response ahead of them is
    /// still being written. Kept raw and cut one line at a time, so that
    /// pipelined requests cost at most one read's worth of memory; nothing
    /// more is read until they are used up.
    private var input: [UInt8] = []
    private var inputStart = 0
    /// A LOG or TAIL replay still being written.
    var stream: LogStream?
    /// A STATUS of every session still being written.
    var listing: SessionListing?
    /// A response is still being written as the client reads: nothing else
    /// is read or answered meanwhile.
    var isStreaming: Bool { stream != nil || listing != nil }
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
    /// Since when the client has left half a line and is waiting (for the idle timeout).
    var partialLineSince: UInt64?

    init(fd: Int32, token: UInt64, peer: Peer, maximumLineLength: Int) {
        self.fd = fd
        self.token = token
        self.peer = peer
        self.framer = LineFramer(maximumLength: maximumLineLength)
    }

    var isTailing: Bool { followedSession != nil || stream?.isFollowing == true }

    /// The connection waits for its current response before handling more lines.
    var isBusy: Bool { stream != nil || followedSession != nil }

    /// Read bytes not yet cut into lines.
    var hasPendingInput: Bool { inputStart < input.count }

    /// The client has sent part of a line and the daemon waits for the rest.
    var isWaitingForRestOfLine: Bool { framer.hasPartialLine && !hasPendingInput && !inputClosed }

    /// Keeps bytes just read; called only once earlier ones are used up.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        input.append(contentsOf: bytes)
    }

    /// The next complete line of the pending input, or nil once it is used up.
    func nextFrame() -> LineFramer.Frame? {
        guard hasPendingInput else { return nil }
        let frame = input.withUnsafeBytes { raw in
            framer.nextFrame(in: raw, from: &inputStart)
        }
        if inputStart >= input.count {
            // A large buffer is dropped so that an idle connection holds little memory.
            input.removeAll(keepingCapacity: input.capacity <= 4096)
            inputStart = 0
        }
        return frame
    }
}
