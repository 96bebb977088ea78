/// The format of a session's state file: text, one `key=value` per line,
/// readable with `cat`, ending in a CRC-32C of everything before it.
///
/// ```
/// monkeyd-session 1
/// name=default
/// ...
/// checksum=1a2b3c4d
/// ```
///
/// In values, `\` is written `\\`, a line feed `\n` and a carriage return `\r`.
public enum StateFile {
    static let firstLine = "monkeyd-session 1"

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public static func encode(_ stored: StoredSession) -> [UInt8] {
        let snapshot = stored.snapshot
        let settings = snapshot.settings
        let fields: [(String, String)] = [
            ("name", snapshot.name.text), ("state", snapshot.isTyping ? "running" : "stopped"),
            ("monkeys", String(settings.monkeys)), ("interval", settings.interval.description),
            ("alphabet", settings.alphabet.text), ("target", settings.target.target),
            ("next_id", String(snapshot.nextID)), ("next_number", String(snapshot.nextNumber)),
            ("typed", String(snapshot.typed)), ("hits", String(snapshot.hits)),
            ("best_length", String(snapshot.bestLength)), ("reserved_id", String(stored.reservedID)),
            ("reserved_number", String(stored.reservedNumber)),
        ]
        var output = Array((firstLine + "\n").utf8)
        for (key, value) in fields {
            output.append(contentsOf: key.utf8)
            output.append(UInt8(ascii: "="))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
                case 0x0A: output.append(contentsOf: "\\n".utf8)
                case 0x0D: output.append(contentsOf: "\\r".utf8)
                default: output.append(byte)
                }
            }
            output.append(0x0A)
        }
        output.append(contentsOf: "checksum=\(hex(CRC32C.checksum(output)))\n".utf8)
        return output
    }

    /// Reads a state file; `name` is the session the file name says it holds.
    public static func decode(_ bytes: [UInt8], name: SessionName) throws(Problem) -> StoredSession {
        guard let marker = lastLineStart(bytes), bytes.last == 0x0A else {
            throw Problem("the file is incomplete (no checksum line)")
        }
        let checksumLine = String(decoding: bytes[marker..<(bytes.count - 1)], as: UTF8.self)
        guard checksumLine == "checksum=\(hex(CRC32C.checksum(Array(bytes[..<marker]))))" else {
            throw Problem("the checksum does not match the contents")
        }
        guard let text = String(validating: bytes[..<marker], as: UTF8.self) else {
            throw Problem("the file is not valid UTF-8")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.first == Substring(firstLine) else { throw Problem("unknown format (expected '\(firstLine)')") }
        lines.removeFirst()
        var values: [String: String] = [:]
        for line in lines {
            guard let equals = line.firstIndex(of: "=") else { throw Problem("a line has no '=': '\(line)'") }
            values[String(line[..<equals])] = unescape(line[line.index(after: equals)...])
        }
        return try stored(from: values, name: name)
    }

    private static func stored(from values: [String: String], name: SessionName) throws(Problem) -> StoredSession {
        func value(_ key: String) throws(Problem) -> String {
            guard let value = values[key] else { throw Problem("'\(key)' is missing") }
            return value
        }
        func number(_ key: String) throws(Problem) -> UInt64 {
            guard let number = UInt64(try value(key)) else { throw Problem("'\(key)' is not a number") }
            return number
        }
        guard try value("name") == name.text else {
            throw Problem("it holds session '\(values["name"] ?? "")', not '\(name)'")
        }
        let state = try value("state")
        guard state == "running" || state == "stopped" else { throw Problem("unknown state '\(state)'") }
        guard let monkeys = Int(try value("monkeys")), monkeys >= 1 else { throw Problem("bad 'monkeys'") }
        guard let interval = Interval(parsing: try value("interval")), interval.nanoseconds > 0 else {
            throw Problem("bad 'interval'")
        }
        let alphabet: Alphabet
        do {
            alphabet = try Alphabet(validating: try value("alphabet"), limit: 1 << 20)
        } catch {
            throw Problem("bad 'alphabet'")
        }
        let settings = SessionSettings(
            monkeys: monkeys, interval: interval, alphabet: alphabet, target: TargetMatcher(target: try value("target"))
        )
        guard let bestLength = Int(try value("best_length")), bestLength >= 0 else {
            throw Problem("bad 'best_length'")
        }
        let snapshot = SessionSnapshot(
            name: name, settings: settings, isTyping: state == "running", nextID: try number("next_id"),
            nextNumber: try number("next_number"), typed: try number("typed"), hits: try number("hits"),
            bestLength: bestLength)
        guard snapshot.nextID >= 1 && snapshot.nextNumber >= 1 else { throw Problem("ids and numbers start at 1") }
        return StoredSession(
            snapshot: snapshot, reservedID: try number("reserved_id"), reservedNumber: try number("reserved_number"))
    }

    private static func lastLineStart(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var index = bytes.count - 2
        while index >= 0 && bytes[index] != 0x0A { index -= 1 }
        return index < 0 ? nil : index + 1
    }

    private static func unescape(_ text: Substring) -> String {
        guard text.contains("\\") else { return String(text) }
        var output: [UInt8] = []
        var escaped = false
        for byte in text.utf8 {
            if escaped {
                switch byte {
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                default: output.append(byte)
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
