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
        if index < bytes.count {
            // One space after the type, and a field after it.
            guard index + 1 < bytes.count else { throw Malformed(line: line) }
            var scanner = FieldScanner(bytes, from: index + 1)
            while let field = scanner.next() {
                fields.append(
                    (String(decoding: field.key, as: UTF8.self), String(decoding: field.value, as: UTF8.self)))
            }
            guard scanner.isWellFormed else { throw Malformed(line: line) }
        }
        return Record(type: type, fields: fields)
    }
}
