/// Why a target can never be typed, with a sentence for people: START and
/// SET say it in their `OK` text, the journal records it, and `monkeyctl
/// odds` prints it.
public struct Impossibility: Sendable, Equatable, CustomStringConvertible {
    /// The target's characters that the alphabet lacks, each once, in the
    /// order they first appear in the target; empty when it has them all.
    public let missingCharacters: [Unicode.Scalar]
    /// The length of an entry (the number of monkeys).
    public let entryLength: Int
    /// The target's length in characters (Unicode scalars).
    public let targetLength: Int

    /// Nil when the target can be typed: every character of it is in the
    /// alphabet and it fits in an entry.
    public init?(target: String, monkeys: Int, alphabet: Alphabet) {
        let letters = Set(alphabet.text.unicodeScalars)
        var missing: [Unicode.Scalar] = []
        var seen = Set<Unicode.Scalar>()
        var length = 0
        for scalar in target.unicodeScalars {
            length += 1
            if !letters.contains(scalar) && seen.insert(scalar).inserted { missing.append(scalar) }
        }
        guard !missing.isEmpty || length > monkeys else { return nil }
        missingCharacters = missing
        entryLength = monkeys
        targetLength = length
    }

    /// The warning of a START or SET (its `OK` text, the journal's
    /// `warning` field).
    public var warning: String { "the target can never be typed: \(self)" }

    /// Whether entries are shorter than the target.
    public var isEntryTooShort: Bool { entryLength < targetLength }

    /// Characters named in the sentence; the rest are counted.
    public static let charactersListed = 10

    /// The reason as a sentence fragment, lower case and without a final
    /// full stop, such as `the alphabet lacks "y"` or
    /// `entries of 1 character cannot hold a 6-character target`; both
    /// reasons, joined by `, and `, when both hold.
    public var description: String {
        var reasons: [String] = []
        if !missingCharacters.isEmpty {
            reasons.append("the alphabet lacks " + Self.list(missingCharacters))
        }
        if isEntryTooShort {
            let noun = entryLength == 1 ? "character" : "characters"
            reasons.append("entries of \(entryLength) \(noun) cannot hold a \(targetLength)-character target")
        }
        return reasons.joined(separator: ", and ")
    }

    /// `"x"`, `"x" and "y"`, `"x", "y" and "z"`; after `charactersListed`
    /// of them, `and 5 more`.
    private static func list(_ scalars: [Unicode.Scalar]) -> String {
        var shown = scalars.prefix(charactersListed).map(Self.spelling)
        if scalars.count > charactersListed {
            shown.append("\(scalars.count - charactersListed) more")
        }
        guard shown.count > 1, let last = shown.popLast() else { return shown.first ?? "" }
        return shown.joined(separator: ", ") + " and " + last
    }

    /// A character in double quotes, or as `U+200B` when it would not be
    /// seen there: marks, formatting characters and blanks other than the space.
    static func spelling(_ scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format, .lineSeparator, .paragraphSeparator, .control,
            .surrogate, .privateUse, .unassigned:
            return codePoint(scalar)
        case .spaceSeparator where scalar != " ":
            return codePoint(scalar)
        default:
            switch scalar {
            case "\"": return #""\"""#
            case "\\": return #""\\""#
            default: return "\"\(scalar)\""
            }
        }
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
