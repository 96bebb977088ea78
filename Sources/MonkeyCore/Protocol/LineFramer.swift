/// Cuts a byte stream into LF-terminated lines of at most `maximumLength`
/// bytes (not counting the LF); a longer line is reported once and the rest
/// of it is discarded up to its LF.
public struct LineFramer: Sendable {
    public enum Frame: Equatable, Sendable {
        /// A complete line without its LF (a trailing CR is kept for the parser).
        case line([UInt8])
        case lineTooLong
    }

    public let maximumLength: Int
    private var partial: [UInt8] = []
    private var isDiscarding = false

    public init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Bytes of a line begun but not yet ended (for idle and limit checks).
    public var pendingByteCount: Int { partial.count }
    public var hasPartialLine: Bool { !partial.isEmpty || isDiscarding }

    /// Consumes `bytes` from `start` up to the end of the next frame and
    /// returns it, or consumes them all and returns nil when no frame is
    /// complete yet. Taking one frame at a time lets a caller that must
    /// wait (a response still streaming) keep the rest as raw bytes, so
    /// that pipelined lines never pile up as frames.
    public mutating func nextFrame(in bytes: UnsafeRawBufferPointer, from start: inout Int) -> Frame? {
        var line: [UInt8] = []
        switch nextFrame(in: bytes, from: &start, into: &line) {
        case .line: return .line(line)
        case .lineTooLong: return .lineTooLong
        case nil: return nil
        }
    }

    /// What `nextFrame(into:)` found.
    public enum Cut: Equatable, Sendable {
        /// A complete line, now in the buffer passed.
        case line
        case lineTooLong
    }

    /// `nextFrame(in:from:)` with the line copied into `line` (emptied
    /// first, its memory kept) rather than into an array of its own: a
    /// reader of many lines reuses one buffer, and a request costs no
    /// allocation to frame.
    public mutating func nextFrame(in bytes: UnsafeRawBufferPointer, from start: inout Int, into line: inout [UInt8])
        -> Cut?
    {
        let count = bytes.count
        while start < count {
            guard let newline = Self.index(of: 0x0A, in: bytes, from: start) else {
                let tooLong = absorb(bytes, start..<count)
                start = count
                return tooLong ? .lineTooLong : nil
            }
            if partial.isEmpty && !isDiscarding && newline - start <= maximumLength {
                // The whole line is in `bytes`: copied once.
                line.removeAll(keepingCapacity: true)
                line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<newline]))
                start = newline + 1
                return .line
            }
            if absorb(bytes, start..<newline) {
                // Reported now; the LF still ends the discarded line later.
                start = newline
                return .lineTooLong
            }
            start = newline + 1
            if isDiscarding {
                isDiscarding = false
                continue
            }
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: partial)
            partial.removeAll(keepingCapacity: partial.capacity <= 4096)
            return .line
        }
        return nil
    }

    /// Feeds bytes, calling `handle` for each frame completed by them.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Frame) -> Void) {
        var start = 0
        while start < bytes.count {
            guard let frame = nextFrame(in: bytes, from: &start) else { return }
            handle(frame)
        }
    }

    public mutating func feed(_ bytes: [UInt8], _ handle: (Frame) -> Void) {
        bytes.withUnsafeBytes { feed($0, handle) }
    }

    /// Adds bytes to the partial line; true when they just took it past the limit.
    private mutating func absorb(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        guard !isDiscarding, !range.isEmpty else { return false }
        if partial.count + range.count > maximumLength {
            partial = []
            isDiscarding = true
            return true
        }
        partial.append(contentsOf: bytes[range])
        return false
    }

    private static func index(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }
}
