/// Unsigned LEB128 integers, as the journal's entries records store ids,
/// numbers and lengths: seven bits a byte, least significant first, the
/// high bit set on every byte but the last. An id below two million takes
/// three bytes instead of eight.
enum VarInt {
    /// The most bytes an integer takes (64 bits, seven a byte).
    static let mostLength = 10

    /// How many bytes `value` takes.
    static func length(of value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// Writes `value` at `offset`, returning the offset just past it.
    /// Inlined for a one-byte integer (an epoch, a text's length), as
    /// `load` is: a tick's entry stores two, which as calls cost it 24
    /// instructions more.
    @inline(__always)
    static func store(_ value: UInt64, in bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        guard value >= 0x80 else {
            bytes[offset] = UInt8(truncatingIfNeeded: value)
            return offset + 1
        }
        return storeLonger(value, in: bytes, at: offset)
    }

    @inline(never)
    private static func storeLonger(_ value: UInt64, in bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var value = value
        var offset = offset
        while value >= 0x80 {
            bytes[offset] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            offset += 1
        }
        bytes[offset] = UInt8(value)
        return offset + 1
    }

    /// Reads the integer at `offset`, advancing it past the integer; nil if
    /// the bytes end first or the integer does not fit in 64 bits or is not
    /// in its shortest form. Inlined for the one-byte integers most are (a
    /// flag-sized epoch, a text's length, an id below 128), read three or
    /// four times an entry by a fold and at start-up.
    @inline(__always)
    static func load(from bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
        if offset < bytes.count, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        // Two bytes (below 16,384, a last byte of zero being no shortest form).
        if bytes.count - offset >= 2, case let second = bytes[offset + 1], second < 0x80, second != 0 {
            defer { offset += 2 }
            return UInt64(bytes[offset] & 0x7F) | UInt64(second) << 7
        }
        return loadLonger(from: bytes, at: &offset)
    }

    private static func loadLonger(from bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var position = offset
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            let bits = UInt64(byte & 0x7F)
            guard shift < 64, (bits << shift) >> shift == bits else { return nil }
            value |= bits << shift
            guard byte & 0x80 != 0 else {
                // A last byte of zero (after the first) would make a second spelling of the same value.
                guard byte != 0 || position == offset + 1 else { return nil }
                offset = position
                return value
            }
            shift += 7
        }
        return nil
    }
}

extension VarInt {
    /// Appends `value` to `output`.
    static func append<Output: ByteOutput>(_ value: UInt64, to output: inout Output) {
        var value = value
        while value >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        output.append(UInt8(value))
    }
}

/// Reads the fields of a record body in order; every read fails (nil)
/// rather than read past the end.
struct FieldReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func integer() -> UInt64? {
        VarInt.load(from: bytes, at: &offset)
    }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A UTF-8 text preceded by its length (a `VarInt`); nil if not valid UTF-8.
    mutating func text() -> String? {
        guard let length = integer(), length <= UInt64(bytes.count - offset) else { return nil }
        let slice = bytes[offset..<(offset + Int(length))]
        offset += Int(length)
        return String(validating: slice, as: UTF8.self)
    }

    /// A little-endian UInt64.
    mutating func fixed64() -> UInt64? {
        guard bytes.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension ByteOutput {
    /// A UTF-8 text preceded by its length (a `VarInt`), as `FieldReader.text` reads it.
    mutating func appendText(_ text: String) {
        VarInt.append(UInt64(text.utf8.count), to: &self)
        appendUTF8(text)
    }
}

extension Array where Element == UInt8 {
    /// A little-endian UInt64.
    mutating func appendFixed64(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
