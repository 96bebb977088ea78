/// RFC 4648 base64 (the standard alphabet, `=` padding), for coverage
/// bitmaps in protocol lines; the core has no Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 63)])
            output.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 63)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`, or nil if it is not base64 in its one canonical
    /// spelling (length a multiple of 4, padding only at the end, unused bits zero).
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let equals = UInt8(ascii: "=")
            var padding = 0
            if index + 4 == characters.count && characters[index + 3] == equals {
                padding = characters[index + 2] == equals ? 2 : 1
            }
            var group: UInt32 = 0
            for offset in 0..<4 {
                let value: UInt8 = offset >= 4 - padding ? 0 : values[Int(characters[index + offset])]
                guard value != 0xFF else { return nil }
                group = group << 6 | UInt32(value)
            }
            let bytes = [UInt8(group >> 16 & 0xFF), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF)]
            // Bits the padding leaves unused must be zero, for one spelling.
            if padding == 1 && bytes[2] != 0 || padding == 2 && (bytes[1] != 0 || bytes[2] != 0) { return nil }
            output.append(contentsOf: bytes[..<(3 - padding)])
            index += 4
        }
        return output
    }
}
