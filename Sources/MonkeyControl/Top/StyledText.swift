/// How a piece of text looks on a terminal: one foreground colour and the
/// attributes that need no colour (so that they stay under `NO_COLOR`).
struct TextStyle: Hashable, Sendable {
    /// The eight basic colours (SGR 30 to 37); `none` is the terminal's own.
    enum Color: UInt8, Sendable {
        case none = 0
        case red = 31
        case green = 32
        case yellow = 33
        case blue = 34
        case magenta = 35
        case cyan = 36
    }

    var color: Color = .none
    var isBold = false
    var isDim = false
    var isUnderlined = false
    var isReversed = false

    static let plain = TextStyle()

    /// The same style without its colour (for `NO_COLOR`).
    var withoutColor: TextStyle {
        var style = self
        style.color = .none
        return style
    }

    /// The same style in reverse video (the selected row, the headings).
    var reversed: TextStyle {
        var style = self
        style.isReversed = true
        return style
    }
}

/// A line of text in pieces of one style each: what the layout produces
/// and the screen is built from.
struct StyledText: Equatable, Sendable {
    struct Span: Equatable, Sendable {
        var text: String
        var style: TextStyle
    }

    var spans: [Span] = []

    init() {}

    init(_ text: String, _ style: TextStyle = .plain) {
        spans = text.isEmpty ? [] : [Span(text: text, style: style)]
    }

    mutating func append(_ text: String, _ style: TextStyle = .plain) {
        guard !text.isEmpty else { return }
        if let last = spans.last, last.style == style {
            spans[spans.count - 1].text += text
        } else {
            spans.append(Span(text: text, style: style))
        }
    }

    mutating func append(_ other: StyledText) {
        for span in other.spans { append(span.text, span.style) }
    }

    /// The text without styles, as a pipe gets it.
    var plainText: String { spans.map(\.text).joined() }

    /// Display columns (see `DisplayWidth`).
    var width: Int { spans.reduce(0) { $0 + DisplayWidth.of($1.text) } }

    /// The same text with `transform` applied to every span's style.
    func restyled(_ transform: (TextStyle) -> TextStyle) -> StyledText {
        var result = self
        for index in result.spans.indices { result.spans[index].style = transform(result.spans[index].style) }
        return result
    }

    /// At most `columns` display columns: cut, with `…` as the last column
    /// when something was cut. A wide character that would straddle the
    /// limit is left out.
    func truncated(to columns: Int) -> StyledText {
        guard columns > 0 else { return StyledText() }
        guard width > columns else { return self }
        var result = StyledText()
        var used = 0
        let room = columns - 1
        outer: for span in spans {
            var piece = ""
            for character in span.text {
                let characterWidth = DisplayWidth.of(character)
                if used + characterWidth > room {
                    result.append(piece, span.style)
                    result.append("…", span.style)
                    break outer
                }
                piece.append(character)
                used += characterWidth
            }
            result.append(piece, span.style)
        }
        return result
    }

    /// Exactly `columns` display columns: cut as `truncated`, or padded
    /// with spaces in `padding` style on the right (or on the left when
    /// `alignedRight`).
    func fitted(to columns: Int, alignedRight: Bool = false, padding: TextStyle = .plain) -> StyledText {
        let cut = truncated(to: columns)
        let missing = columns - cut.width
        guard missing > 0 else { return cut }
        let spaces = String(repeating: " ", count: missing)
        if alignedRight {
            var result = StyledText(spaces, padding)
            result.append(cut)
            return result
        }
        var result = cut
        result.append(spaces, padding)
        return result
    }
}
