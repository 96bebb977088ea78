extension String {
    /// Calls `body` with the string's UTF-8 bytes where they lie, which a
    /// native string always allows; `withUTF8` needs a mutable copy, and
    /// copying the string at every typed entry showed in profiles.
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }
}
