import Testing

@testable import MonkeyControl

/// Keys from the bytes a terminal sends, however the reads cut them.
@Suite("Key decoder")
struct KeyDecoderTests {
    /// Bytes of a typical session at the keyboard, and the keys they are.
    static let typed: [UInt8] = Array("\u{1B}[A\u{1B}[B \u{1B}OA\u{1B}[5~\u{1B}[6~\u{1B}[1;5B\ro\u{3}qé日".utf8)
    static let keys: [Key] = [
        .up, .down, .space, .up, .pageUp, .pageDown, .down, .enter, .character("o"), .interrupt,
        .character("q"), .character("é"), .character("日"),
    ]

    static func decode(_ chunks: [[UInt8]]) -> [Key] {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for chunk in chunks { keys += decoder.feed(chunk) }
        #expect(!decoder.hasPending)
        return keys
    }

    @Test func allAtOnce() {
        #expect(Self.decode([Self.typed]) == Self.keys)
    }

    @Test func byteByByte() {
        #expect(Self.decode(Self.typed.map { [$0] }) == Self.keys)
    }

    /// Every place a read could end, escape sequences and UTF-8 characters
    /// cut in two among them.
    @Test func cutAtEveryPlace() {
        for cut in 0...Self.typed.count {
            let chunks = [Array(Self.typed[..<cut]), Array(Self.typed[cut...])]
            #expect(Self.decode(chunks) == Self.keys, "cut after byte \(cut)")
        }
    }

    @Test func aLoneEscapeWaitsThenIsTheEscapeKey() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.hasPending)
        #expect(decoder.feed(Array("q".utf8)) == [.character("q")])
    }

    @Test func anEscapeSequenceCutAfterItsIntroducerWaitsForTheRest() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B, UInt8(ascii: "[")]).isEmpty)
        #expect(decoder.feed([UInt8(ascii: "1"), UInt8(ascii: ";")]).isEmpty)
        #expect(decoder.feed([UInt8(ascii: "5"), UInt8(ascii: "A")]) == [.up])
    }

    @Test(arguments: [
        ("\u{1B}[H", Key.home), ("\u{1B}[F", .end), ("\u{1B}[1~", .home), ("\u{1B}[4~", .end),
        ("\u{1B}[7~", .home), ("\u{1B}[8~", .end), ("\u{1B}OB", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\n", .enter), ("\t", .tab), ("\u{7F}", .backspace), ("\u{0C}", .control(0x0C)), ("\u{1B}OM", .enter),
    ])
    func namedKeys(bytes: String, key: Key) {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array(bytes.utf8)) == [key])
    }

    /// Sequences this view has no use for (function keys, mouse reports,
    /// focus events) are swallowed whole, never typed as letters.
    @Test func unknownSequencesAreDropped() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[15~\u{1B}[I\u{1B}[2;3Rq".utf8)) == [.character("q")])
    }

    @Test func invalidUTF8IsDroppedAndTheRestDecoded() {
        var decoder = KeyDecoder()
        #expect(
            decoder.feed([0xFF, 0xC3, UInt8(ascii: "q"), UInt8(ascii: "y")]) == [.character("q"), .character("y")])
    }

    @Test func anOverlongSequenceIsDroppedNotHeldForever() {
        var decoder = KeyDecoder()
        let garbage = [0x1B, UInt8(ascii: "[")] + Array(repeating: UInt8(ascii: "1"), count: 100) + [UInt8(ascii: "q")]
        let keys = decoder.feed(garbage)
        #expect(!decoder.hasPending)
        #expect(keys.allSatisfy { $0 == .character("1") || $0 == .character("q") })
        #expect(keys.last == .character("q"))
    }
}
