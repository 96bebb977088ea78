/// A validated session name: 1 to 64 of `A-Z a-z 0-9 _ . -`, not starting
/// with `.` or `-`, so that it is safe as a file name.
public struct SessionName: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let text: String

    public static let maximumLength = 64

    public init?(_ text: String) {
        // Read where the bytes lie: every request naming a session comes here.
        let isValid = text.utf8.withContiguousStorageIfAvailable(SessionName.isValid) ?? SessionName.isValid(text.utf8)
        guard isValid else { return nil }
        self.text = text
    }

    /// A name read from bytes where they lie; the string is made only for a valid one.
    public init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard SessionName.isValid(bytes) else { return nil }
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are a valid name, checked where they lie without a string.
    public static func isValid(bytes: UnsafeRawBufferPointer) -> Bool {
        isValid(bytes)
    }

    private static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= SessionName.maximumLength else { return false }
        guard first != UInt8(ascii: ".") && first != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy(SessionName.isAllowed)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    public var description: String { text }
    public static func < (lhs: SessionName, rhs: SessionName) -> Bool { lhs.text < rhs.text }
}
