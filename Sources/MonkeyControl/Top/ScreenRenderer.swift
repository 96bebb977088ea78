/// Turns one screen into the next with as few bytes as it can: only the
/// cells that changed are written, with cursor moves (CUP) between runs of
/// changes and a style change (SGR) only where the style differs. The
/// terminal is expected in the state `FullScreenTerminal` leaves it in:
/// automatic wrap off, so a character in the last column stays there.
enum ScreenRenderer {
    /// The bytes that make a terminal showing `previous` show `next`. With
    /// no previous screen, or one of another size, the whole screen is
    /// cleared and drawn.
    static func update(from previous: Screen?, to next: Screen) -> [UInt8] {
        var writer = Writer()
        let columns = next.size.columns
        guard let previous, previous.size == next.size else {
            writer.output += Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
            for row in 0..<next.size.rows {
                writer.write(next, row: row, from: 0, to: columns)
            }
            writer.finish()
            return writer.output
        }
        for row in 0..<next.size.rows {
            var column = 0
            while column < columns {
                guard next[row, column] != previous[row, column] else {
                    column += 1
                    continue
                }
                // A run of changes, bridging gaps shorter than a cursor move.
                var end = column + 1
                var lastChange = column
                while end < columns && end - lastChange <= Self.bridgedGap {
                    if next[row, end] != previous[row, end] { lastChange = end }
                    end += 1
                }
                var start = column
                // A changed continuation cell is redrawn with its wide character.
                if next[row, start].isContinuation && start > 0 { start -= 1 }
                var stop = lastChange + 1
                if stop < columns && next[row, stop].isContinuation { stop += 1 }
                writer.write(next, row: row, from: start, to: stop)
                column = stop
            }
        }
        writer.finish()
        return writer.output
    }

    /// Unchanged cells up to this many are written over rather than jumped:
    /// a cursor move costs about as many bytes.
    static let bridgedGap = 4

    private struct Writer {
        var output: [UInt8] = []
        /// Where the terminal's cursor is, when known.
        var cursor: (row: Int, column: Int)?
        /// The style the terminal draws in now; nil when unknown.
        var style: TextStyle? = .plain

        mutating func write(_ screen: Screen, row: Int, from start: Int, to stop: Int) {
            var column = start
            while column < stop {
                let cell = screen[row, column]
                if cell.isContinuation {
                    column += 1
                    continue
                }
                if cursor == nil || cursor?.row != row || cursor?.column != column {
                    output += Array("\u{1B}[\(row + 1);\(column + 1)H".utf8)
                }
                if style != cell.style {
                    output += Self.sgr(cell.style)
                    style = cell.style
                }
                output += Array(cell.text.utf8)
                column += cell.width
                // After a wide character, or in the last column, the terminal's
                // idea of the cursor may differ from ours: place the next one.
                cursor = cell.width == 1 && column < screen.size.columns ? (row, column) : nil
            }
        }

        mutating func finish() {
            if style != .plain {
                output += Self.sgr(.plain)
                style = .plain
            }
        }

        /// `ESC [ 0 ; ... m`: the whole style, from a reset.
        static func sgr(_ style: TextStyle) -> [UInt8] {
            var codes = ["0"]
            if style.isBold { codes.append("1") }
            if style.isDim { codes.append("2") }
            if style.isUnderlined { codes.append("4") }
            if style.isReversed { codes.append("7") }
            if style.color != .none { codes.append(String(style.color.rawValue)) }
            return Array("\u{1B}[\(codes.joined(separator: ";"))m".utf8)
        }
    }
}
