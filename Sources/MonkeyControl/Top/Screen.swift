/// What a full-screen view shows: a grid of cells, each one character in
/// one style. A wide character takes its cell and the continuation cell
/// after it. Built from styled lines; the renderer compares two screens.
struct Screen: Equatable, Sendable {
    struct Cell: Equatable, Sendable {
        /// One character (a grapheme cluster), or empty for the second
        /// column of a wide character.
        var text: String
        var style: TextStyle
        var width: Int

        static let blank = Cell(text: " ", style: .plain, width: 1)
        static let continuation = Cell(text: "", style: .plain, width: 0)

        var isContinuation: Bool { width == 0 }
    }

    let size: Size
    private(set) var cells: [Cell]

    struct Size: Equatable, Sendable {
        var rows: Int
        var columns: Int
    }

    /// The lines from the top, each cut at the right edge; rows past the
    /// last line are blank, lines past the last row are left out.
    init(size: Size, lines: [StyledText]) {
        self.size = size
        cells = Array(repeating: .blank, count: max(size.rows, 0) * max(size.columns, 0))
        for (row, line) in lines.prefix(max(size.rows, 0)).enumerated() {
            place(line, row: row)
        }
    }

    subscript(row: Int, column: Int) -> Cell {
        cells[row * size.columns + column]
    }

    /// One row as a person reads it: the characters, trailing spaces kept.
    func text(ofRow row: Int) -> String {
        var text = ""
        for column in 0..<size.columns {
            text += self[row, column].text
        }
        return text
    }

    private mutating func place(_ line: StyledText, row: Int) {
        var column = 0
        let base = row * size.columns
        for span in line.spans {
            for character in span.text {
                var width = DisplayWidth.of(character)
                var text = String(character)
                if DisplayWidth.isShownAsReplacement(character) {
                    text = "\u{FFFD}"
                    width = 1
                }
                if column + width > size.columns {
                    // A wide character that does not fit leaves its column blank.
                    return
                }
                cells[base + column] = Cell(text: text, style: span.style, width: width)
                if width == 2 { cells[base + column + 1] = Cell(text: "", style: span.style, width: 0) }
                column += width
            }
        }
    }
}
