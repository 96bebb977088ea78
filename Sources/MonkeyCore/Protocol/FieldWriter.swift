/// Where the fields of a record go, one at a time and in order: a data
/// line's bytes (`LineFields`), a `Record` (`RecordFields`), a journal
/// entry, an events-file record. What a record holds (a session's STATUS,
/// an event's fields) is written once against this protocol, and each
/// destination renders it its own way.
public protocol FieldWriter {
    mutating func write(_ key: StaticString, _ value: String)
    mutating func write(_ key: StaticString, decimal value: UInt64)
    /// A field whose key is known only as text (an event read back from
    /// the events file).
    mutating func write(key: String, _ value: String)
}

/// Fields as a data line has them: ` key=value`, the value quoted where
/// it must be (`ResponseEncoder.appendValue`).
public struct LineFields<Output: ByteOutput>: FieldWriter {
    public var output: Output

    public init(_ output: Output) {
        self.output = output
    }

    public mutating func write(_ key: StaticString, _ value: String) {
        output.append(0x20)
        output.appendLiteral(key)
        output.append(0x3D)
        ResponseEncoder.appendValue(value, to: &output)
    }

    public mutating func write(_ key: StaticString, decimal value: UInt64) {
        output.append(0x20)
        output.appendLiteral(key)
        output.append(0x3D)
        ResponseEncoder.appendDecimal(value, to: &output)
    }

    public mutating func write(key: String, _ value: String) {
        ResponseEncoder.appendField(key, value, to: &output)
    }
}

extension LineFields where Output == [UInt8] {
    /// Writes fields at the end of `output`, moved in and out rather than
    /// copied (a copy of a connection's output would be copied whole at
    /// the first byte written).
    public static func appending(to output: inout [UInt8], _ body: (inout LineFields) -> Void) {
        var fields = LineFields([])
        swap(&fields.output, &output)
        body(&fields)
        swap(&fields.output, &output)
    }
}

/// Fields collected as a `Record`'s.
public struct RecordFields: FieldWriter {
    public var fields: [(key: String, value: String)] = []

    public init() {}

    public mutating func write(_ key: StaticString, _ value: String) {
        fields.append((key.description, value))
    }

    public mutating func write(_ key: StaticString, decimal value: UInt64) {
        fields.append((key.description, String(value)))
    }

    public mutating func write(key: String, _ value: String) {
        fields.append((key, value))
    }
}
