/// A data line of a response: a lower-case record type and logfmt fields,
/// such as `entry session=default id=7 number=7 text=qwert`.
public struct Record: Sendable, Equatable {
    public var type: String
    public var fields: [(key: String, value: String)]

    public init(type: String, fields: [(key: String, value: String)]) {
        self.type = type
        self.fields = fields
    }

    public func value(_ key: String) -> String? {
        fields.first { $0.key == key }?.value
    }

    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.type == rhs.type && lhs.fields.elementsEqual(rhs.fields) { $0.key == $1.key && $0.value == $1.value }
    }
}

/// The line that ends every response.
public enum Status: Sendable, Equatable {
    case ok(String?)
    case error(ProtocolError)
}
