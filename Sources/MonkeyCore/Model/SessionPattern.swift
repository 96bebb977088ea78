/// A session named in TAIL or EVENTS: a name, or a shell-style glob
/// (`*`, `?`, `[...]`, `[!...]`) that may match any number of sessions,
/// now and later.
public enum SessionPattern: Sendable, Hashable, CustomStringConvertible {
    case name(SessionName)
    case glob(Glob)

    /// Reads a token: a glob if it holds `*`, `?` or `[`, else a session name.
    public init?(_ text: String) {
        if text.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") })
        {
            guard let glob = Glob(text) else { return nil }
            self = .glob(glob)
        } else {
            guard let name = SessionName(text) else { return nil }
            self = .name(name)
        }
    }

    public func matches(_ name: SessionName) -> Bool {
        switch self {
        case .name(let own): own == name
        case .glob(let glob): glob.matches(name.text)
        }
    }

    public var isGlob: Bool {
        if case .glob = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .name(let name): name.text
        case .glob(let glob): glob.text
        }
    }
}

/// A shell-style glob over session names: `*` any run of characters, `?`
/// one character, `[abc]`, `[a-z]` and `[!a-z]` one of (or none of) a set.
/// Matching takes time proportional to the glob's length times the name's
/// at worst (no backtracking blow-up), so a glob of thousands of characters
/// costs no more than reading it.
public struct Glob: Sendable, Hashable {
    public let text: String
    private let elements: [Element]

    enum Element: Sendable, Hashable {
        case any
        case one
        case byte(UInt8)
        case set([ClosedRange<UInt8>], negated: Bool)
    }

    /// Nil for a malformed glob (an unclosed `[`, an empty set) or one with
    /// characters a session name cannot hold.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        var elements: [Element] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "*"):
                // Runs of stars are one star.
                if elements.last != .any { elements.append(.any) }
                index += 1
            case UInt8(ascii: "?"):
                elements.append(.one)
                index += 1
            case UInt8(ascii: "["):
                guard let (set, end) = Self.set(bytes, from: index + 1) else { return nil }
                elements.append(set)
                index = end
            default:
                guard Self.isNameByte(byte) else { return nil }
                elements.append(.byte(byte))
                index += 1
            }
        }
        self.text = text
        self.elements = elements
    }

    /// The set starting after a `[`, and the index past its `]`.
    private static func set(_ bytes: [UInt8], from start: Int) -> (Element, Int)? {
        var index = start
        var negated = false
        if index < bytes.count && (bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "^")) {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt8>] = []
        while index < bytes.count && bytes[index] != UInt8(ascii: "]") {
            let low = bytes[index]
            guard isNameByte(low) else { return nil }
            if index + 2 < bytes.count && bytes[index + 1] == UInt8(ascii: "-") && bytes[index + 2] != UInt8(ascii: "]")
            {
                let high = bytes[index + 2]
                guard isNameByte(high), low <= high else { return nil }
                ranges.append(low...high)
                index += 3
            } else {
                ranges.append(low...low)
                index += 1
            }
        }
        guard index < bytes.count, !ranges.isEmpty else { return nil }
        return (.set(ranges, negated: negated), index + 1)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Whether the whole of `name` matches. Greedy with one saved star
    /// position: a later star supersedes an earlier one, so no choice is
    /// ever revisited twice.
    public func matches(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        var element = 0
        var position = 0
        var star: (element: Int, position: Int)?
        while position < bytes.count {
            if element < elements.count {
                switch elements[element] {
                case .any:
                    star = (element, position)
                    element += 1
                    continue
                case .one:
                    element += 1
                    position += 1
                    continue
                case .byte(let expected) where expected == bytes[position]:
                    element += 1
                    position += 1
                    continue
                case .set(let ranges, let negated) where ranges.contains { $0.contains(bytes[position]) } != negated:
                    element += 1
                    position += 1
                    continue
                default:
                    break
                }
            }
            guard let saved = star else { return false }
            // The star takes one more character, and matching resumes after it.
            star = (saved.element, saved.position + 1)
            element = saved.element + 1
            position = saved.position + 1
        }
        while element < elements.count && elements[element] == .any { element += 1 }
        return element == elements.count
    }
}
