/// A request line split into tokens: positional words and `key=value` settings.
public enum Token: Sendable, Equatable {
    case word(String)
    case setting(key: String, value: String)

    /// Bytes that a bare token or logfmt value cannot hold: blanks and other
    /// control characters, `"`, `=` and `\`. Requests and responses quote
    /// by the same rule (`RequestEncoder`, `ResponseEncoder`).
    @inline(__always)
    public static func needsQuoting(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x22 || byte == 0x3D || byte == 0x5C || byte == 0x7F
    }
}

/// Splits a request line into tokens. Tokens are separated by spaces or tabs;
/// a token is bare (no whitespace, no `"`) or double-quoted with the escapes
/// `\\`, `\"`, `\n`, `\t`; a setting's value may be quoted too.
public enum Tokenizer {
    public static func tokens(in line: String) throws(ProtocolError) -> [Token] {
        var tokens: [Token] = []
        let bytes = Array(line.utf8)
        var index = 0
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while index < bytes.count {
            if isBlank(bytes[index]) {
                index += 1
                continue
            }
            if bytes[index] == 0x22 {
                tokens.append(.word(try quoted(bytes, at: &index)))
                continue
            }
            let start = index
            var equals: Int?
            while index < bytes.count && !isBlank(bytes[index]) {
                if bytes[index] == 0x3D && equals == nil {
                    equals = index
                    if index + 1 < bytes.count && bytes[index + 1] == 0x22 { break }
                }
                if bytes[index] == 0x22 {
                    throw ProtocolError(.badRequest, "a quote may only start a token or a value")
                }
                index += 1
            }
            guard let equals else {
                tokens.append(.word(text(bytes[start..<index])))
                continue
            }
            let key = text(bytes[start..<equals])
            guard !key.isEmpty else { throw ProtocolError(.badRequest, "a setting needs a key before '='") }
            if index < bytes.count && bytes[index] == 0x3D {
                index += 1
                tokens.append(.setting(key: key, value: try quoted(bytes, at: &index)))
            } else {
                tokens.append(.setting(key: key, value: text(bytes[(equals + 1)..<index])))
            }
        }
        return tokens
    }

    /// Reads a quoted string starting at the opening quote; leaves `index`
    /// after the closing quote, which must end the token.
    private static func quoted(_ bytes: [UInt8], at index: inout Int) throws(ProtocolError) -> String {
        var value: [UInt8] = []
        index += 1
        while true {
            guard index < bytes.count else { throw ProtocolError(.badRequest, "unterminated quoted string") }
            let byte = bytes[index]
            index += 1
            if byte == 0x22 { break }
            if byte != 0x5C {
                value.append(byte)
                continue
            }
            guard index < bytes.count else { throw ProtocolError(.badRequest, "unterminated quoted string") }
            switch bytes[index] {
            case 0x5C: value.append(0x5C)
            case 0x22: value.append(0x22)
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "t"): value.append(0x09)
            default:
                let escaped = String(decoding: [bytes[index]], as: UTF8.self)
                throw ProtocolError(.badRequest, "unknown escape '\\\(escaped)' in quoted string")
            }
            index += 1
        }
        if index < bytes.count && bytes[index] != 0x20 && bytes[index] != 0x09 {
            throw ProtocolError(.badRequest, "a closing quote must end the token")
        }
        return String(decoding: value, as: UTF8.self)
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
