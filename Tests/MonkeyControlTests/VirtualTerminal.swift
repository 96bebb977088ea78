@testable import MonkeyControl

/// A terminal in a test: understands what `ScreenRenderer` writes (cursor
/// moves, SGR, clearing) as a real one does with automatic wrap off,
/// including what it does to a wide character partly overwritten.
struct VirtualTerminal {
    let rows: Int
    let columns: Int
    private(set) var cells: [Screen.Cell]
    private var row = 0
    private var column = 0
    private var style = TextStyle.plain

    init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        cells = Array(repeating: .blank, count: rows * columns)
    }

    /// Whether it shows exactly `screen`, cell for cell and style for style.
    func shows(_ screen: Screen) -> Bool {
        guard screen.size.rows == rows, screen.size.columns == columns else { return false }
        return cells == screen.cells
    }

    func text(ofRow row: Int) -> String {
        cells[(row * columns)..<((row + 1) * columns)].map(\.text).joined()
    }

    mutating func apply(_ bytes: [UInt8]) {
        var index = 0
        var text: [UInt8] = []
        func flushText() {
            for character in String(decoding: text, as: UTF8.self) { put(character) }
            text.removeAll()
        }
        while index < bytes.count {
            guard bytes[index] == 0x1B else {
                text.append(bytes[index])
                index += 1
                continue
            }
            flushText()
            precondition(index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "["), "only CSI is written")
            var end = index + 2
            while end < bytes.count && !(0x40...0x7E).contains(bytes[end]) { end += 1 }
            let parameters = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
            control(parameters, final: bytes[end])
            index = end + 1
        }
        flushText()
    }

    private mutating func control(_ parameters: String, final: UInt8) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        switch final {
        case UInt8(ascii: "H"):
            row = max((numbers.first ?? 1) ?? 1, 1) - 1
            column = max((numbers.count > 1 ? numbers[1] : 1) ?? 1, 1) - 1
        case UInt8(ascii: "J"):
            precondition(parameters == "2")
            cells = Array(repeating: .blank, count: rows * columns)
        case UInt8(ascii: "m"):
            var next = TextStyle.plain
            for number in numbers {
                switch number {
                case 0, nil: next = .plain
                case 1: next.isBold = true
                case 2: next.isDim = true
                case 4: next.isUnderlined = true
                case 7: next.isReversed = true
                case let code?: next.color = TextStyle.Color(rawValue: UInt8(code)) ?? .none
                }
            }
            style = next
        default:
            preconditionFailure("unexpected control sequence \(parameters)\(Character(Unicode.Scalar(final)))")
        }
    }

    /// A character at the cursor; a wide one takes two cells. Writing over
    /// half of a wide character blanks its other half, as terminals do.
    private mutating func put(_ character: Character) {
        let width = DisplayWidth.of(character)
        guard row < rows, column + width <= columns else {
            return
        }
        let base = row * columns
        for covered in column..<(column + width) {
            if cells[base + covered].isContinuation && covered > 0 { cells[base + covered - 1] = .blank }
            if cells[base + covered].width == 2 && covered + 1 < columns { cells[base + covered + 1] = .blank }
        }
        cells[base + column] = Screen.Cell(text: String(character), style: style, width: width)
        if width == 2 { cells[base + column + 1] = Screen.Cell(text: "", style: style, width: 0) }
        // Automatic wrap is off: in the last column the cursor stays put.
        column = min(column + width, columns - 1)
    }
}
