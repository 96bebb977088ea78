/// Writes records and status lines as protocol bytes (logfmt data lines).
public enum ResponseEncoder {
    public static func append(_ record: Record, to output: inout [UInt8]) {
        output.appendUTF8(record.type)
        for field in record.fields {
            appendField(field.key, field.value, to: &output)
        }
        output.append(0x0A)
    }

    public static func append(_ status: Status, to output: inout [UInt8]) {
        switch status {
        case .ok(nil):
            output.appendLiteral("OK\n")
        case .ok(let text?):
            appendStatusLine(head: "OK ", text, to: &output)
        case .error(let error):
            appendStatusLine(head: "ERR " + error.code.rawValue + " ", error.message, to: &output)
        }
    }

    /// An entry line, written without building a `Record`: this is the hot
    /// path of LOG, TAIL and followers.
    public static func appendEntry(_ entry: Entry, session: SessionName, to output: inout [UInt8]) {
        output.appendLiteral("entry session=")
        output.appendUTF8(session.text)
        output.appendLiteral(" id=")
        appendDecimal(entry.id, to: &output)
        output.appendLiteral(" number=")
        appendDecimal(entry.number, to: &output)
        output.appendLiteral(" text=")
        appendValue(entry.text, to: &output)
        if entry.isHit { output.appendLiteral(" hit=yes") }
        output.append(0x0A)
    }

    @inlinable
    public static func appendField<Output: ByteOutput>(_ key: String, _ value: String, to output: inout Output) {
        output.append(0x20)
        output.appendUTF8(key)
        output.append(0x3D)
        appendValue(value, to: &output)
    }

    /// A value bare if it can be, else quoted with `\\ \" \n \t` and `\xHH`
    /// for other control characters.
    @inlinable
    public static func appendValue<Output: ByteOutput>(_ value: String, to output: inout Output) {
        var value = value
        value.withUTF8 { bytes in
            if !bytes.isEmpty && !bytes.contains(where: Token.needsQuoting) {
                output.appendBytes(bytes)
                return
            }
            output.append(0x22)
            for byte in bytes {
                switch byte {
                case 0x5C, 0x22:
                    output.append(0x5C)
                    output.append(byte)
                case 0x0A: output.appendLiteral("\\n")
                case 0x09: output.appendLiteral("\\t")
                case 0..<0x20, 0x7F:
                    output.appendLiteral("\\x")
                    output.append(hexDigit(byte >> 4))
                    output.append(hexDigit(byte & 0xF))
                default: output.append(byte)
                }
            }
            output.append(0x22)
        }
    }

    public static func encode(_ record: Record) -> String {
        var output: [UInt8] = []
        append(record, to: &output)
        output.removeLast()
        return String(decoding: output, as: UTF8.self)
    }

    @usableFromInline
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
    }

    /// `head`, then `text` with its line breaks made blanks (a status is
    /// one line), then LF: assembled in one buffer and appended to the
    /// output once. Every change's answer comes here, and three appends to
    /// the array cost more than the bytes.
    private static func appendStatusLine(head: String, _ text: String, to output: inout [UInt8]) {
        head.withUTF8Bytes { head in
            text.withUTF8Bytes { text in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: head.count + text.count + 1) { line in
                    var end = 0
                    for byte in head {
                        line[end] = byte
                        end += 1
                    }
                    for byte in text {
                        line[end] = byte == 0x0A || byte == 0x0D ? 0x20 : byte
                        end += 1
                    }
                    line[end] = 0x0A
                    output.append(contentsOf: UnsafeBufferPointer(line))
                }
            }
        }
    }

    @inlinable
    public static func appendDecimal<Output: ByteOutput>(_ value: UInt64, to output: inout Output) {
        output.appendDecimal(value)
    }
}
