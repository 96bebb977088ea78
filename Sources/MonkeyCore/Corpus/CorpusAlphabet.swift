/// An alphabet as a corpus sees it: each character a symbol, its index in
/// the alphabet (0 ..< k, k ≤ 256, in the order the alphabet was written,
/// the order the monkeys type from), and back.
public struct CorpusAlphabet: Sendable, Equatable {
    /// The most characters a corpus session's alphabet may have: a symbol is one byte.
    public static let maximumCount = 256
    /// What `byteSymbols` holds for a byte that is no character of a single-byte alphabet.
    static let noSymbol: UInt8 = 0xFF

    public let alphabet: Alphabet
    /// The characters, by symbol.
    let scalars: [Unicode.Scalar]
    /// The UTF-8 bytes of each symbol's character: `utf8Offsets[s] ..< utf8Offsets[s + 1]`.
    let utf8Bytes: [UInt8]
    let utf8Offsets: [Int]
    /// Whether every character is one byte (ASCII).
    let isSingleByte: Bool
    /// For a single-byte alphabet, each byte's symbol or `noSymbol`.
    let byteSymbols: [UInt8]
    private let symbolsByScalar: [Unicode.Scalar: UInt8]

    public init(_ alphabet: Alphabet) throws(CorpusError) {
        let scalars = Array(alphabet.text.unicodeScalars)
        guard scalars.count <= Self.maximumCount else {
            throw .alphabetTooLarge(count: scalars.count, limit: Self.maximumCount)
        }
        self.alphabet = alphabet
        self.scalars = scalars
        var bytes: [UInt8] = []
        var offsets = [0]
        var byScalar: [Unicode.Scalar: UInt8] = [:]
        for (symbol, scalar) in scalars.enumerated() {
            bytes.append(contentsOf: String(scalar).utf8)
            offsets.append(bytes.count)
            byScalar[scalar] = UInt8(symbol)
        }
        utf8Bytes = bytes
        utf8Offsets = offsets
        symbolsByScalar = byScalar
        isSingleByte = bytes.count == scalars.count
        var byteSymbols = [UInt8](repeating: Self.noSymbol, count: 256)
        if isSingleByte {
            for (symbol, byte) in bytes.enumerated() { byteSymbols[Int(byte)] = UInt8(symbol) }
        }
        self.byteSymbols = byteSymbols
    }

    /// k, the number of characters.
    public var count: Int { scalars.count }

    /// The symbol of a character, or nil if the alphabet lacks it.
    public func symbol(of scalar: Unicode.Scalar) -> UInt8? {
        symbolsByScalar[scalar]
    }

    /// The character of a symbol.
    public func scalar(of symbol: UInt8) -> Unicode.Scalar {
        scalars[Int(symbol)]
    }

    /// How many bytes of UTF-8 a symbol's character takes.
    func utf8Length(of symbol: UInt8) -> Int {
        utf8Offsets[Int(symbol) + 1] - utf8Offsets[Int(symbol)]
    }

    /// The text of `symbols`, as UTF-8.
    public func text(of symbols: some Sequence<UInt8>) -> String {
        var bytes: [UInt8] = []
        for symbol in symbols {
            bytes.append(contentsOf: utf8Bytes[utf8Offsets[Int(symbol)]..<utf8Offsets[Int(symbol) + 1]])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The symbols of a text of the alphabet's characters; nil if it holds another.
    public func symbols(of text: String) -> [UInt8]? {
        var symbols: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard let symbol = symbolsByScalar[scalar] else { return nil }
            symbols.append(symbol)
        }
        return symbols
    }
}
