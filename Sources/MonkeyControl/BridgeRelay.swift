import MonkeyShell

/// One direction of `monkeyctl bridge`: what a source sent waits in a
/// buffer of fixed size until its sink takes it. The source is read only
/// while there is room, so a slow sink holds the source back (the kernel's
/// buffers fill and the writer on the far side waits) instead of growing
/// memory.
struct BridgeRelay {
    enum State: Equatable, Sendable {
        /// The source may send more.
        case open
        /// The source ended: what is buffered goes to the sink, then the
        /// sink is to be shut (`isDrained`).
        case ending
        /// Nothing more passes: the sink was shut, or it went away.
        case closed
    }

    private(set) var state = State.open
    private var buffer: [UInt8]
    /// The bytes waiting for the sink are `buffer[start..<end]`.
    private var start = 0
    private var end = 0

    /// 64 KiB: a few hundred response lines, and the most a pipe holds.
    static let defaultCapacity = 65536

    init(capacity: Int = defaultCapacity) {
        precondition(capacity > 0, "a relay needs room for a byte")
        buffer = [UInt8](repeating: 0, count: capacity)
    }

    /// Bytes read from the source and not yet taken by the sink.
    var pendingCount: Int { end - start }

    /// The source is to be read: it is open and there is room.
    var wantsInput: Bool { state == .open && pendingCount < buffer.count }

    /// The sink is to be written: bytes wait and it is still there.
    var wantsOutput: Bool { state != .closed && pendingCount > 0 }

    /// The source ended and the sink has everything: time to shut the sink.
    var isDrained: Bool { state == .ending && pendingCount == 0 }

    /// Reads from the source into the room there is: `read` is given that
    /// room and says what it read.
    mutating func receive(_ read: (UnsafeMutableRawBufferPointer) throws(SystemError) -> Syscalls.ReadResult)
        throws(SystemError)
    {
        guard wantsInput else { return }
        if end == buffer.count {
            // Full at the back but with room at the front: move the waiting bytes down.
            let (from, count) = (start, pendingCount)
            buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                base.copyMemory(from: base + from, byteCount: count)
            }
            (start, end) = (0, count)
        }
        let free = end
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try read(UnsafeMutableRawBufferPointer(rebasing: raw[free...])) }
        }
        switch try result.get() {
        case .bytes(let count): self.end += count
        case .wouldBlock: break
        case .endOfFile: state = .ending
        }
    }

    /// Writes what waits to the sink: `write` is given the bytes and says
    /// how many it took.
    mutating func send(_ write: (UnsafeRawBufferPointer) throws(SystemError) -> Int) throws(SystemError) {
        guard wantsOutput else { return }
        let (start, end) = (self.start, self.end)
        let result = buffer.withUnsafeBytes { raw in
            Result { () throws(SystemError) in try write(UnsafeRawBufferPointer(rebasing: raw[start..<end])) }
        }
        self.start += try result.get()
        if self.start == self.end { (self.start, self.end) = (0, 0) }
    }

    /// The source ended without a sign from it (it failed): as at its end.
    mutating func endInput() {
        if state == .open { state = .ending }
    }

    /// Nothing more passes: the sink was shut, or went away (what waits is dropped).
    mutating func close() {
        state = .closed
        (start, end) = (0, 0)
    }
}
