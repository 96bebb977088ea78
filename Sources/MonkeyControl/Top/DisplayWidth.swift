/// How many terminal columns a character takes: 2 for East Asian wide and
/// full-width characters and emoji shown as pictures, 1 otherwise. A
/// cluster of only combining marks or format characters, which a terminal
/// would put on top of its neighbour, is shown as U+FFFD in one column
/// (`isShownAsReplacement`). Terminals do
/// not all agree on every character; where they may differ, this errs
/// towards 2, and the renderer places every character after a wide one
/// by its column, so that a disagreement never pushes a row past the edge.
enum DisplayWidth {
    static func of(_ text: String) -> Int {
        // Printable ASCII, the common case: a column a byte.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    static func of(_ character: Character) -> Int {
        // Printable ASCII, the common case, needs no lookup.
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return 1 }
        var width = 0
        for scalar in character.unicodeScalars {
            width = max(width, of(scalar))
        }
        return max(width, 1)
    }

    /// A character the screen shows as U+FFFD: a control character (text
    /// from outside is escaped before it gets here), or one that would
    /// take no column of its own.
    static func isShownAsReplacement(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii < 0x20 || ascii == 0x7F }
        var width = 0
        for scalar in character.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (value >= 0x7F && value < 0xA0) { return true }
            width = max(width, of(scalar))
        }
        return width == 0
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if value == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        if value == 0xFE0F { return 2 }  // emoji presentation selector: the picture
        return isWide(value) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15, those
    /// not already emoji presentation.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        return wideRanges.contains { $0.contains(value) }
    }
}
