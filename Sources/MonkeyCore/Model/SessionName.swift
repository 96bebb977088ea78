/// A validated session name: 1 to 64 of `A-Z a-z 0-9 _ . -`, not starting
/// with `.` or `-`, so that it is safe as a file name.
public struct SessionName: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let text: String

    public static let maximumLength = 64

    public init?(_ text: String) {
        // Read where the bytes lie: every request naming a session comes here.
        let bytes = text.utf8
        guard let first = bytes.first, bytes.count <= SessionName.maximumLength else { return nil }
        guard first != UInt8(ascii: ".") && first != UInt8(ascii: "-") else { return nil }
        guard bytes.allSatisfy(SessionName.isAllowed) else { return nil }
        self.text = text
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
