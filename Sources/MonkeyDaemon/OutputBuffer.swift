import MonkeyShell

/// Bytes queued for one client, written in as few `send` calls as possible.
struct OutputBuffer {
    private(set) var bytes: [UInt8] = []
    private var start = 0

    var pendingCount: Int { bytes.count - start }
    var isEmpty: Bool { start == bytes.count }

    mutating func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// The size `bytes` may grow to so that at most `limit` bytes are pending.
    func byteLimit(pending limit: Int) -> Int { start + limit }

    /// Appends through a closure that writes into the buffer directly.
    mutating func withBytes<Result>(_ body: (inout [UInt8]) -> Result) -> Result {
        body(&bytes)
    }

    /// Sends what the socket takes now; returns true when everything is sent.
    mutating func flush(to fd: Int32) throws(SystemError) -> Bool {
        while start < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) in
                    try Syscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[start...]))
                }
            }
            let written = try result.get()
            if written == 0 { break }
            start += written
        }
        if start == bytes.count {
            // Keep a modest buffer for reuse; drop a large one so an idle
            // connection holds little memory.
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
            start = 0
            return true
        }
        if start > 64 * 1024 && start > bytes.count / 2 {
            bytes.removeSubrange(0..<start)
            start = 0
        }
        return false
    }
}
