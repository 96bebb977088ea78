/// UTF-8 as the corpus reads it: validation that names the first bad byte,
/// and decoding of text already validated, ASCII eight bytes at a time.
enum UTF8Text {
    /// The offset of the first byte that is not part of a well-formed UTF-8
    /// sequence (an overlong form, a surrogate, a value past U+10FFFF, a
    /// stray continuation byte, a sequence cut short), or nil if all are.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight ASCII bytes at a time: the common case of English text.
            if count - index >= 8 {
                let word = UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + index).loadUnaligned(
                    as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(bytes, at: index) else { return index }
            index += length
        }
        return nil
    }

    /// The length of the well-formed sequence at `index` (whose lead byte
    /// is not ASCII), or nil if it is not one (RFC 3629, table 3-7 of the
    /// Unicode standard).
    private static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = bytes[index]
        let remaining = bytes.count - index
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            offset < remaining && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0:
            return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : nil
        case 0xED:
            return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : nil
        case 0xF0:
            return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4:
            return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }

    /// The scalar value of the sequence at `index` of well-formed UTF-8,
    /// advancing `index` past it. Malformed input gives U+FFFD for one
    /// byte, so that no input can make it read out of bounds.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32 {
        let lead = UInt32(bytes[index])
        if lead < 0x80 {
            index += 1
            return lead
        }
        guard let length = sequenceLength(bytes, at: index) else {
            index += 1
            return 0xFFFD
        }
        var value = lead & (0x7F >> UInt32(length))
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        index += length
        return value
    }
}
