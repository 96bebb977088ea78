/// Reads response lines back: what `monkeyctl` and the tests understand.
public enum ResponseLine: Sendable, Equatable {
    case record(Record)
    case status(Status)
}

public enum ResponseDecoder {
    public struct Malformed: Error, Sendable, Equatable {
        public let line: String
    }

    public static func decode(_ line: String) throws(Malformed) -> ResponseLine {
        if line == "OK" { return .status(.ok(nil)) }
        if line.hasPrefix("OK ") { return .status(.ok(String(line.dropFirst(3)))) }
        if line.hasPrefix("ERR ") {
            let rest = line.dropFirst(4)
            let parts = rest.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            let code = ErrorCode(rawValue: String(parts[0])) ?? .internal
            let message = parts.count > 1 ? String(parts[1]) : ""
            return .status(.error(ProtocolError(code, message)))
        }
        return .record(try record(line))
    }

    /// Parses a logfmt data line (`type key=value key="quoted value"`).
    public static func record(_ line: String) throws(Malformed) -> Record {
        let bytes = Array(line.utf8)
        var index = 0
        while index < bytes.count && bytes[index] != 0x20 { index += 1 }
        let type = String(decoding: bytes[0..<index], as: UTF8.self)
        guard !type.isEmpty else { throw Malformed(line: line) }
        var fields: [(key: String, value: String)] = []
        while index < bytes.count {
            guard bytes[index] == 0x20 else { throw Malformed(line: line) }
            index += 1
            let keyStart = index
            while index < bytes.count && bytes[index] != 0x3D && bytes[index] != 0x20 { index += 1 }
            guard index < bytes.count, bytes[index] == 0x3D, index > keyStart else { throw Malformed(line: line) }
            let key = String(decoding: bytes[keyStart..<index], as: UTF8.self)
            index += 1
            var value: [UInt8] = []
            if index < bytes.count && bytes[index] == 0x22 {
                index += 1
                var closed = false
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if byte == 0x22 {
                        closed = true
                        break
                    }
                    guard byte == 0x5C else {
                        value.append(byte)
                        continue
                    }
                    guard index < bytes.count else { throw Malformed(line: line) }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case 0x5C, 0x22: value.append(escape)
                    case UInt8(ascii: "n"): value.append(0x0A)
                    case UInt8(ascii: "t"): value.append(0x09)
                    case UInt8(ascii: "x"):
                        guard index + 1 < bytes.count, let high = hex(bytes[index]), let low = hex(bytes[index + 1])
                        else { throw Malformed(line: line) }
                        value.append(high << 4 | low)
                        index += 2
                    default: throw Malformed(line: line)
                    }
                }
                guard closed else { throw Malformed(line: line) }
            } else {
                while index < bytes.count && bytes[index] != 0x20 {
                    value.append(bytes[index])
                    index += 1
                }
            }
            fields.append((key, String(decoding: value, as: UTF8.self)))
        }
        return Record(type: type, fields: fields)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
