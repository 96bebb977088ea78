import Testing

@testable import MonkeyControl

/// The diff renderer: whatever it writes, a terminal ends up showing the
/// new screen, and it writes only what changed.
@Suite("Screen renderer")
struct ScreenRendererTests {
    static let size = Screen.Size(rows: 6, columns: 20)
    static let bold = TextStyle(color: .green, isBold: true)

    static func screen(_ lines: [StyledText], size: Screen.Size = size) -> Screen {
        Screen(size: size, lines: lines)
    }

    static func lines(_ texts: String...) -> [StyledText] {
        texts.map { StyledText($0) }
    }

    /// Draws `first`, then `second`; checks the terminal shows `second`;
    /// returns the bytes of the update.
    @discardableResult
    static func check(_ first: Screen, _ second: Screen) -> [UInt8] {
        var terminal = VirtualTerminal(rows: first.size.rows, columns: first.size.columns)
        terminal.apply(ScreenRenderer.update(from: nil, to: first))
        #expect(terminal.shows(first), "first frame")
        let update = ScreenRenderer.update(from: first, to: second)
        terminal.apply(update)
        #expect(terminal.shows(second), "after the update: \((0..<second.size.rows).map(terminal.text(ofRow:)))")
        return update
    }

    @Test func theSameScreenTwiceWritesNothing() {
        let screen = Self.screen(Self.lines("monkeyd", "alpha  running"))
        #expect(ScreenRenderer.update(from: screen, to: screen).isEmpty)
    }

    @Test func oneChangedFigureWritesAFewBytes() {
        let before = Self.screen(Self.lines("monkeyd", "alpha  typed 1,234", "beta   typed 99"))
        let after = Self.screen(Self.lines("monkeyd", "alpha  typed 1,235", "beta   typed 99"))
        let update = Self.check(before, after)
        // A cursor move and one digit.
        #expect(update == Array("\u{1B}[2;18H5".utf8))
    }

    @Test func aChangeOfStyleAloneIsWritten() {
        var line = StyledText("alpha ")
        line.append("running", Self.bold)
        let update = Self.check(Self.screen(Self.lines("alpha running")), Self.screen([line]))
        #expect(String(decoding: update, as: UTF8.self).contains("\u{1B}[0;1;32m"))
        #expect(update.suffix(4) == Array("\u{1B}[0m".utf8), "the terminal is left in the plain style")
    }

    @Test func nearbyChangesAreOneRunAndFarOnesTwo() {
        let before = Self.screen(Self.lines("aaaaaaaaaaaaaaaaaaaa"))
        let near = Self.screen(Self.lines("abaabaaaaaaaaaaaaaaa"))
        let far = Self.screen(Self.lines("baaaaaaaaaaaaaaaaaab"))
        let cursorMoves = { (bytes: [UInt8]) in bytes.filter { $0 == 0x1B }.count }
        #expect(cursorMoves(Self.check(before, near)) == 1)
        #expect(cursorMoves(Self.check(before, far)) == 2)
    }

    @Test func aResizeDrawsEverythingAgain() {
        let small = Self.screen(Self.lines("monkeyd"))
        let large = Self.screen(Self.lines("monkeyd"), size: Screen.Size(rows: 8, columns: 30))
        let update = ScreenRenderer.update(from: small, to: large)
        #expect(update.starts(with: Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)))
        var terminal = VirtualTerminal(rows: 8, columns: 30)
        terminal.apply(update)
        #expect(terminal.shows(large))
    }

    /// Wide characters replaced by narrow ones and back, half covered,
    /// moved by one column: the terminal shows the new screen each time.
    @Test(arguments: [
        ("日本語のテキスト", "abcdefghijklmnop"), ("abcdefghijklmnop", "日本語のテキスト"), ("日本語", "a日本語"),
        ("a日本語", "日本語"), ("x🐒y", "xy🐒"), ("🐒🐒🐒🐒🐒🐒🐒🐒🐒🐒", "a🐒🐒🐒🐒🐒🐒🐒🐒🐒"), ("monkey", "monkey 日"),
    ])
    func wideCharacters(before: String, after: String) {
        Self.check(Self.screen(Self.lines(before, after)), Self.screen(Self.lines(after, before)))
    }

    /// A wide character that does not fit in the last column is left out;
    /// nothing is ever written past the right edge.
    @Test func aWideCharacterAtTheEdgeIsLeftOut() {
        let screen = Self.screen([StyledText("0123456789012345678日")])
        #expect(screen[0, 19] == .blank)
        var terminal = VirtualTerminal(rows: Self.size.rows, columns: Self.size.columns)
        terminal.apply(ScreenRenderer.update(from: nil, to: screen))
        #expect(terminal.shows(screen))
    }

    /// Control characters and lone combining marks never reach the
    /// terminal: each shows as U+FFFD in one column.
    @Test func controlCharactersAndLoneMarksShowAsReplacements() {
        var line = StyledText("a\u{1B}b\u{0301}")
        line.append("\u{0301}c", Self.bold)
        let screen = Self.screen([line])
        #expect(screen.text(ofRow: 0).hasPrefix("a\u{FFFD}b\u{0301}\u{FFFD}c "))
        let bytes = ScreenRenderer.update(from: nil, to: screen)
        // Every ESC written starts a control sequence of the renderer's own.
        for (index, byte) in bytes.enumerated() where byte == 0x1B {
            #expect(bytes[index + 1] == UInt8(ascii: "["))
        }
    }

    /// Random screens in random styles, one after another (seeded, so a
    /// failure replays): the terminal always shows the latest.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomScreens(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let alphabet: [String] = ["a", "b", " ", "日", "🐒", "é", "-", "本"]
        let styles = [TextStyle.plain, Self.bold, TextStyle(isReversed: true), TextStyle(isDim: true)]
        func randomScreen() -> Screen {
            var lines: [StyledText] = []
            for _ in 0..<Self.size.rows {
                var line = StyledText()
                for _ in 0..<(random.next() % 30) {
                    line.append(alphabet[Int(random.next() % 8)], styles[Int(random.next() % 4)])
                }
                lines.append(line)
            }
            return Screen(size: Self.size, lines: lines)
        }
        var terminal = VirtualTerminal(rows: Self.size.rows, columns: Self.size.columns)
        var previous: Screen?
        for _ in 0..<50 {
            let next = randomScreen()
            terminal.apply(ScreenRenderer.update(from: previous, to: next))
            #expect(terminal.shows(next))
            previous = next
        }
    }
}

/// A small seeded generator for tests.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
