/// Unsigned LEB128 integers, as the journal's entries records store ids,
/// numbers and lengths: seven bits a byte, least significant first, the
/// high bit set on every byte but the last. An id below two million takes
/// three bytes instead of eight.
enum VarInt {
    /// How many bytes `value` takes.
    static func length(of value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// Writes `value` at `offset`, returning the offset just past it.
    static func store(_ value: UInt64, in bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
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
    /// in its shortest form.
    static func load(from bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
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
