/// One line of the Prometheus text exposition format (version 0.0.4) read
/// back: what `monkeyctl metrics --json` turns into JSON, and what tests
/// check the daemon's output with. It reads what `Exposition` writes and
/// the rest of the format's sample syntax (blanks, an optional timestamp).
public enum ExpositionLine: Sendable, Equatable {
    /// `# HELP name text`, with the text unescaped.
    case help(name: String, text: String)
    /// `# TYPE name kind`.
    case type(name: String, kind: String)
    /// Another comment, or an empty line.
    case comment
    case sample(ExpositionSample)

    /// Why a line cannot be read, with the offending column (0-based, in bytes).
    public struct Malformed: Error, Sendable, Equatable {
        public let reason: String
        public let column: Int
    }

    public static func parse(_ line: String) throws(Malformed) -> ExpositionLine {
        var reader = Reader(Array(line.utf8))
        reader.skipBlanks()
        if reader.isAtEnd { return .comment }
        if reader.peek == UInt8(ascii: "#") {
            reader.advance()
            reader.skipBlanks()
            let keyword = reader.word()
            guard keyword == "HELP" || keyword == "TYPE" else { return .comment }
            reader.skipBlanks()
            let name = try reader.metricName()
            if keyword == "TYPE" {
                reader.skipBlanks()
                let kind = reader.word()
                guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(kind) else {
                    throw Malformed(reason: "unknown metric type '\(kind)'", column: reader.position)
                }
                return .type(name: name, kind: kind)
            }
            if !reader.isAtEnd { reader.advance() }
            return .help(name: name, text: try reader.rest())
        }
        let name = try reader.metricName()
        var labels: [(name: String, value: String)] = []
        var blanks = reader.skipBlanks()
        if reader.peek == UInt8(ascii: "{") {
            reader.advance()
            while true {
                reader.skipBlanks()
                if reader.peek == UInt8(ascii: "}") { break }
                let label = try reader.labelName()
                reader.skipBlanks()
                try reader.expect(UInt8(ascii: "="))
                reader.skipBlanks()
                try reader.expect(UInt8(ascii: "\""))
                labels.append((label, try reader.quoted()))
                reader.skipBlanks()
                if reader.peek == UInt8(ascii: ",") {
                    reader.advance()
                    continue
                }
                break
            }
            try reader.expect(UInt8(ascii: "}"))
            blanks = reader.skipBlanks()
        }
        guard blanks > 0 else { throw Malformed(reason: "expected a blank", column: reader.position) }
        let valueColumn = reader.position
        let valueText = reader.word()
        guard let value = Self.value(valueText) else {
            throw Malformed(reason: "'\(valueText)' is not a number", column: valueColumn)
        }
        reader.skipBlanks()
        if !reader.isAtEnd {
            let timestampColumn = reader.position
            guard Int64(reader.word()) != nil else {
                throw Malformed(reason: "expected a timestamp in milliseconds", column: timestampColumn)
            }
            reader.skipBlanks()
            guard reader.isAtEnd else { throw Malformed(reason: "unexpected text", column: reader.position) }
        }
        return .sample(ExpositionSample(name: name, labels: labels, value: value, valueText: valueText))
    }

    /// A sample value as the format spells it (Go's float syntax and the
    /// three specials).
    static func value(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            // Swift also reads "inf", "nan" and hexadecimal; the format does not.
            guard let first = text.utf8.first, first != UInt8(ascii: "+") || text.utf8.count > 1,
                text.utf8.allSatisfy({ Self.isNumberByte($0) })
            else { return nil }
            return Double(text)
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
}

/// One sample line: the metric's name (with a histogram's `_bucket`,
/// `_sum` or `_count`), its labels in order, and its value.
public struct ExpositionSample: Sendable {
    public let name: String
    public let labels: [(name: String, value: String)]
    public let value: Double
    /// The value as written.
    public let valueText: String

    public func label(_ name: String) -> String? {
        labels.first { $0.name == name }?.value
    }
}

extension ExpositionSample: Equatable {
    public static func == (left: ExpositionSample, right: ExpositionSample) -> Bool {
        left.name == right.name && left.valueText == right.valueText
            && left.labels.map(\.name) == right.labels.map(\.name)
            && left.labels.map(\.value) == right.labels.map(\.value)
    }
}

/// A cursor over one line's bytes.
private struct Reader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[position] }

    mutating func advance() { position += 1 }

    @discardableResult
    mutating func skipBlanks() -> Int {
        let start = position
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { advance() }
        return position - start
    }

    /// Bytes up to the next blank.
    mutating func word() -> String {
        let start = position
        while let byte = peek, byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") { advance() }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func expect(_ byte: UInt8) throws(ExpositionLine.Malformed) {
        guard peek == byte else {
            throw ExpositionLine.Malformed(reason: "expected '\(Character(Unicode.Scalar(byte)))'", column: position)
        }
        advance()
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
    mutating func metricName() throws(ExpositionLine.Malformed) -> String {
        try identifier(allowsColon: true, what: "a metric name")
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`
    mutating func labelName() throws(ExpositionLine.Malformed) -> String {
        try identifier(allowsColon: false, what: "a label name")
    }

    private mutating func identifier(allowsColon: Bool, what: String) throws(ExpositionLine.Malformed) -> String {
        let start = position
        while let byte = peek {
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard
                isLetter || byte == UInt8(ascii: "_") || (allowsColon && byte == UInt8(ascii: ":"))
                    || (isDigit && position > start)
            else { break }
            advance()
        }
        guard position > start else { throw ExpositionLine.Malformed(reason: "expected \(what)", column: start) }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// A label value after its opening quote, through its closing one.
    mutating func quoted() throws(ExpositionLine.Malformed) -> String {
        var value: [UInt8] = []
        while let byte = peek {
            advance()
            switch byte {
            case UInt8(ascii: "\""):
                return try text(value)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { break }
                advance()
                switch escaped {
                case UInt8(ascii: "n"): value.append(0x0A)
                case UInt8(ascii: "\\"), UInt8(ascii: "\""): value.append(escaped)
                default:
                    throw ExpositionLine.Malformed(reason: "unknown escape in a label value", column: position - 1)
                }
            default:
                value.append(byte)
            }
        }
        throw ExpositionLine.Malformed(reason: "unterminated label value", column: position)
    }

    /// The rest of the line, help-text escapes undone.
    mutating func rest() throws(ExpositionLine.Malformed) -> String {
        var value: [UInt8] = []
        while let byte = peek {
            advance()
            guard byte == UInt8(ascii: "\\"), let escaped = peek else {
                value.append(byte)
                continue
            }
            advance()
            switch escaped {
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "\\"): value.append(escaped)
            default: value += [byte, escaped]
            }
        }
        return try text(value)
    }

    private func text(_ value: [UInt8]) throws(ExpositionLine.Malformed) -> String {
        guard let text = String(validating: value, as: UTF8.self) else {
            throw ExpositionLine.Malformed(reason: "not UTF-8", column: position)
        }
        return text
    }
}
