extension [UInt8] {
    /// Appends a string's UTF-8 bytes with one copy from where they lie.
    /// `append(contentsOf: text.utf8)` takes the generic sequence path, about
    /// 170 instructions a call, and every line the daemon writes makes a
    /// dozen such calls.
    public mutating func appendUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if copied == nil { append(contentsOf: text.utf8) }
    }

    /// Appends a literal's UTF-8 bytes.
    public mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
