/// The `key=value` fields of a logfmt line, one after the other, read
/// from its bytes: a value bare up to the next space, or double-quoted
/// with `\\`, `\"`, `\n`, `\t` and `\xHH` escapes (as `ResponseEncoder`
/// writes them). `ResponseDecoder.record` and `top`'s STATUS reader share it.
public struct FieldScanner {
    private let bytes: [UInt8]
    private var index: Int
    /// False once the line broke the rules; `next()` then returns nil.
    public private(set) var isWellFormed = true
    /// Unescaped quoted values are built here.
    private var unquoted: [UInt8] = []

    /// Fields from `start` on: the first byte of the first key.
    public init(_ bytes: [UInt8], from start: Int) {
        self.bytes = bytes
        index = start
    }

    /// The next field; nil at the end of the line or where it breaks the rules.
    public mutating func next() -> (key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)? {
        guard isWellFormed, index < bytes.count else { return nil }
        let keyStart = index
        while index < bytes.count && bytes[index] != 0x3D && bytes[index] != 0x20 { index += 1 }
        guard index < bytes.count, bytes[index] == 0x3D, index > keyStart else { return broken() }
        let key = bytes[keyStart..<index]
        index += 1
        let value: ArraySlice<UInt8>
        if index < bytes.count && bytes[index] == 0x22 {
            index += 1
            unquoted.removeAll(keepingCapacity: true)
            var isClosed = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == 0x22 {
                    isClosed = true
                    break
                }
                guard byte == 0x5C else {
                    unquoted.append(byte)
                    continue
                }
                guard index < bytes.count else { return broken() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 0x5C, 0x22: unquoted.append(escape)
                case UInt8(ascii: "n"): unquoted.append(0x0A)
                case UInt8(ascii: "t"): unquoted.append(0x09)
                case UInt8(ascii: "x"):
                    guard index + 1 < bytes.count, let high = Self.hex(bytes[index]),
                        let low = Self.hex(bytes[index + 1])
                    else { return broken() }
                    unquoted.append(high << 4 | low)
                    index += 2
                default: return broken()
                }
            }
            guard isClosed else { return broken() }
            value = unquoted[...]
        } else {
            let valueStart = index
            while index < bytes.count && bytes[index] != 0x20 { index += 1 }
            value = bytes[valueStart..<index]
        }
        if index < bytes.count {
            // One space between fields, and something after it.
            guard bytes[index] == 0x20, index + 1 < bytes.count else { return broken() }
            index += 1
        }
        return (key, value)
    }

    private mutating func broken() -> (key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)? {
        isWellFormed = false
        return nil
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
