/// Reads every text of a batch on the typing thread, right after it is
/// typed and searched for the target, in id order, from the same buffer: the
/// place for a check that looks at windows of characters (a corpus's
/// chunks), which keeps what it finds in itself for the owner to merge.
public protocol TypedTextScanner {
    mutating func scan(_ text: TypedText)
}

/// One typed text, lent to a `TypedTextScanner` for the call only (the
/// buffers are reused for the next text).
public struct TypedText {
    public let id: UInt64
    /// The text's UTF-8 bytes.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// Each character's index in the alphabet, for an alphabet with
    /// characters of more than one byte; empty for a single-byte alphabet,
    /// whose bytes are its characters (`TypingAlphabet.symbolOfByte`).
    public let symbols: UnsafeBufferPointer<UInt16>
}

/// The scanner of a batch without one.
///
/// It counts the texts it is lent: a value of no size lies at one address
/// shared by every thread, and ThreadSanitizer takes two typists' `inout`
/// accesses to it for a race.
public struct NoTextScanner: TypedTextScanner {
    public private(set) var textsLent = 0
    public init() {}
    @inline(__always)
    public mutating func scan(_ text: TypedText) { textsLent &+= 1 }
}
