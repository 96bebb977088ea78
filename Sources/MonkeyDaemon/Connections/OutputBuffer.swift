import MonkeyShell

/// Bytes queued for one client, written in as few `send` calls as possible.
///
/// Positions are absolute (counted from the first byte ever queued), so
/// that a reply written ahead of its commit can be held back and, if the
/// commit fails, rewritten where it lies however much was sent before it.
struct OutputBuffer {
    private(set) var bytes: [UInt8] = []
    private var start = 0
    /// Bytes dropped from the front of `bytes` so far.
    private var dropped = 0
    /// Bytes from this position on wait for a commit and are not sent.
    private var heldFrom: Int?

    var pendingCount: Int { bytes.count - start }
    var isEmpty: Bool { start == bytes.count }
    /// Some of what is queued may be sent now: it is not all held back.
    var hasSendable: Bool { start < (heldFrom.map { min($0 - dropped, bytes.count) } ?? bytes.count) }
    /// The position just past the last byte queued.
    var end: Int { dropped + bytes.count }

    mutating func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// The size `bytes` may grow to so that at most `limit` bytes are
    /// pending, and at most `slice` more are written now.
    func byteLimit(pending limit: Int, slice: Int = .max) -> Int {
        min(start + limit, bytes.count + min(slice, Int.max - bytes.count))
    }

    /// Appends through a closure that writes into the buffer directly.
    mutating func withBytes<Result>(_ body: (inout [UInt8]) -> Result) -> Result {
        body(&bytes)
    }

    /// Makes room for the buffer to grow to `size` bytes and a little more
    /// at once: a stream slice then costs one allocation, not a doubling
    /// and a copy of what is queued at every power of two.
    mutating func reserve(upTo size: Int) {
        let wanted = size + 4096
        if bytes.capacity < wanted && size < Int.max - 4096 { bytes.reserveCapacity(wanted) }
    }

    /// Holds back what is queued from `position` on until `release`.
    mutating func hold(from position: Int) {
        if heldFrom == nil { heldFrom = position }
    }

    mutating func release() {
        heldFrom = nil
    }

    /// Rewrites the bytes at `range` (absolute positions, not yet sent).
    mutating func replace(_ range: Range<Int>, with replacement: [UInt8]) {
        bytes.replaceSubrange((range.lowerBound - dropped)..<(range.upperBound - dropped), with: replacement)
    }

    /// Sends what the socket takes now, up to what is held; returns true
    /// when everything queued is sent.
    mutating func flush(to fd: Int32) throws(SystemError) -> Bool {
        let sendable = heldFrom.map { min($0 - dropped, bytes.count) } ?? bytes.count
        while start < sendable {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) in
                    try Syscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[start..<sendable]))
                }
            }
            let written = try result.get()
            if written == 0 { break }
            start += written
        }
        if start == bytes.count {
            // Keep a modest buffer for reuse; drop a large one so an idle
            // connection holds little memory.
            dropped += bytes.count
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
            start = 0
            return true
        }
        if start > 64 * 1024 && start > bytes.count / 2 {
            bytes.removeSubrange(0..<start)
            dropped += start
            start = 0
        }
        return false
    }
}
