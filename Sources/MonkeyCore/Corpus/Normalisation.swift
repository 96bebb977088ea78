/// How a work's text becomes the characters a session can type, for one
/// alphabet, in three steps applied in this order to each character
/// (Unicode scalar) of the text:
///
/// 1. if the alphabet holds no upper-case letter (no character that
///    lower-casing changes), every character is lower-cased by Unicode's
///    lowercase mapping (the full mapping, without context: `İ` becomes
///    `i` and U+0307, `Σ` always `σ`);
/// 2. if the alphabet holds a space (U+0020), every run of white space
///    (Unicode's White_Space: space, tab, line ends, no-break spaces…)
///    becomes one space, otherwise white space is dropped;
/// 3. every other character that is not in the alphabet is dropped.
///
/// The steps are taken in order, so a character dropped by step 3 still
/// ends a run of white space: `a - b` becomes `a  b` (two spaces) with
/// letters and space. With the default alphabet it is letters only.
public struct Normalisation: Sendable, Equatable {
    public let alphabet: CorpusAlphabet
    /// Step 1: whether characters are lower-cased.
    public let lowerCases: Bool
    /// Step 2: the space's symbol, if the alphabet holds one.
    public let spaceSymbol: UInt8?
    /// What each ASCII byte becomes, steps 1 to 3 taken: a symbol, `drop` or `whiteSpace`.
    private let asciiActions: [UInt16]

    private static let drop: UInt16 = 0x100
    private static let whiteSpace: UInt16 = 0x200

    public init(alphabet: CorpusAlphabet) {
        self.alphabet = alphabet
        lowerCases = !alphabet.scalars.contains { $0.properties.changesWhenLowercased }
        spaceSymbol = alphabet.symbol(of: " ")
        var actions = [UInt16](repeating: Self.drop, count: 128)
        for byte in 0..<128 {
            let scalar = Unicode.Scalar(UInt8(byte))
            actions[byte] = Self.action(of: scalar, lowerCases: lowerCases, alphabet: alphabet)
        }
        asciiActions = actions
    }

    private static func action(of scalar: Unicode.Scalar, lowerCases: Bool, alphabet: CorpusAlphabet) -> UInt16 {
        // ASCII lower-cases to one ASCII character.
        let lowered = lowerCases ? scalar.properties.lowercaseMapping.unicodeScalars.first ?? scalar : scalar
        if lowered.properties.isWhitespace { return whiteSpace }
        return alphabet.symbol(of: lowered).map(UInt16.init) ?? drop
    }

    /// The symbols of one work's text (well-formed UTF-8), normalised.
    public func symbols(of text: [UInt8]) -> [UInt8] {
        var symbols: [UInt8] = []
        symbols.reserveCapacity(text.count)
        text.withUnsafeBufferPointer { append(normalising: $0, to: &symbols) }
        return symbols
    }

    /// Appends the normalised symbols of `text` (well-formed UTF-8) to `symbols`.
    public func append(normalising text: UnsafeBufferPointer<UInt8>, to symbols: inout [UInt8]) {
        var state = RunState()
        var index = 0
        asciiActions.withUnsafeBufferPointer { actions in
            while index < text.count {
                let byte = text[index]
                if byte < 0x80 {
                    index += 1
                    take(actions[Int(byte)], state: &state, to: &symbols)
                    continue
                }
                let value = UTF8Text.decode(text, at: &index)
                let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                if lowerCases && scalar.properties.changesWhenLowercased {
                    for lowered in scalar.properties.lowercaseMapping.unicodeScalars {
                        take(action(of: lowered), state: &state, to: &symbols)
                    }
                } else {
                    take(action(of: scalar), state: &state, to: &symbols)
                }
            }
        }
    }

    /// Whether the last character taken was white space: a run becomes one space.
    private struct RunState {
        var isInWhiteSpace = false
    }

    /// Steps 2 and 3 for a character already lower-cased as step 1 says.
    private func action(of scalar: Unicode.Scalar) -> UInt16 {
        if scalar.properties.isWhitespace { return Self.whiteSpace }
        return alphabet.symbol(of: scalar).map(UInt16.init) ?? Self.drop
    }

    @inline(__always)
    private func take(_ action: UInt16, state: inout RunState, to symbols: inout [UInt8]) {
        if action == Self.whiteSpace {
            if let space = spaceSymbol, !state.isInWhiteSpace { symbols.append(space) }
            state.isInWhiteSpace = true
            return
        }
        state.isInWhiteSpace = false
        if action != Self.drop { symbols.append(UInt8(action)) }
    }
}
