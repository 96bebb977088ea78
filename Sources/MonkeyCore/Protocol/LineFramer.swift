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

    /// Feeds bytes, calling `handle` for each frame completed by them.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Frame) -> Void) {
        var start = 0
        let count = bytes.count
        while start < count {
            guard let newline = Self.index(of: 0x0A, in: bytes, from: start) else {
                absorb(bytes, start..<count, handle)
                return
            }
            absorb(bytes, start..<newline, handle)
            if isDiscarding {
                isDiscarding = false
            } else {
                handle(.line(partial))
            }
            partial.removeAll(keepingCapacity: partial.capacity <= 4096)
            start = newline + 1
        }
    }

    public mutating func feed(_ bytes: [UInt8], _ handle: (Frame) -> Void) {
        bytes.withUnsafeBytes { feed($0, handle) }
    }

    private mutating func absorb(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ handle: (Frame) -> Void) {
        guard !isDiscarding, !range.isEmpty else { return }
        if partial.count + range.count > maximumLength {
            partial.removeAll()
            isDiscarding = true
            handle(.lineTooLong)
            return
        }
        partial.append(contentsOf: bytes[range])
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
