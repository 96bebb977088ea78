/// Where encoders write bytes: an array (a connection's output, a file's
/// records) or a `ByteBuffer` (a line assembled, then written whole).
public protocol ByteOutput {
    mutating func append(_ byte: UInt8)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
    /// A string's UTF-8 bytes, copied from where they lie.
    mutating func appendUTF8(_ text: String)
    mutating func appendLiteral(_ text: StaticString)
    /// A number in decimal digits (see `ResponseEncoder.appendDecimal`).
    mutating func appendDecimal(_ value: UInt64)
}

extension [UInt8]: ByteOutput {
    public mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: bytes)
    }

    /// `append(contentsOf: text.utf8)` takes the generic sequence path,
    /// about 170 instructions a call, and every line the daemon writes
    /// makes a dozen such calls.
    public mutating func appendUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if copied == nil { append(contentsOf: text.utf8) }
    }

    public mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    public mutating func appendDecimal(_ value: UInt64) {
        if value < 10 {
            append(0x30 + UInt8(value))
            return
        }
        // On the stack: this runs for every number of every STATUS line.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            let start = Self.storeDigits(of: value, endingAt: 20, in: buffer)
            append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<20]))
        }
    }

    /// Writes `value`'s digits backwards from `end`; returns where they start.
    @inline(__always)
    static func storeDigits(of value: UInt64, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var remaining = value
        var start = end
        repeat {
            start -= 1
            buffer[start] = 0x30 + UInt8(remaining % 10)
            remaining /= 10
        } while remaining > 0
        return start
    }
}

/// A growable line of bytes written through a pointer: appending a piece
/// is a bounds check and a copy, where an array's `append(contentsOf:)`
/// costs about 90 instructions however short the piece, and a journal
/// line is some twenty pieces. Reused line after line (`removeAll`).
public final class ByteBuffer: ByteOutput {
    public private(set) var count = 0
    private var capacity: Int
    private var base: UnsafeMutablePointer<UInt8>

    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    public func removeAll() {
        count = 0
    }

    public func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base[count] = byte
        count += 1
    }

    public func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if bytes.count > capacity - count { grow(toHold: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    public func appendUTF8(_ text: String) {
        text.withUTF8Bytes { appendBytes($0) }
    }

    public func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { appendBytes($0) }
    }

    /// Written straight into the buffer: the stderr line has several
    /// numbers, and a temporary buffer for each cost more than its digits.
    public func appendDecimal(_ value: UInt64) {
        var digits = 1
        var power: UInt64 = 10
        while digits < 20 && value >= power {
            digits += 1
            power = power &* 10
        }
        if digits > capacity - count { grow(toHold: count + digits) }
        var remaining = value
        var position = count + digits
        repeat {
            position -= 1
            base[position] = 0x30 + UInt8(remaining % 10)
            remaining /= 10
        } while remaining > 0
        count += digits
    }

    /// The bytes written so far.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written so far, to change in place (a record's checksum).
    public func withMutableBytes<Result>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> Result) rethrows
        -> Result
    {
        try body(UnsafeMutableBufferPointer(start: base, count: count))
    }

    private func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
