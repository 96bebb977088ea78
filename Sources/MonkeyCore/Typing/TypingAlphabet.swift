/// An alphabet made ready for the typing kernel: the tables a batch types
/// with, built once when a session's alphabet is set, never per batch.
public struct TypingAlphabet: Sendable {
    /// The most entries a group table holds: 1,024 words (8 KiB), which stay
    /// in the first-level cache beside the text being typed.
    static let groupTableLimit = 1024
    /// What `symbolOfByte` holds for a byte that is no character of the alphabet.
    public static let noSymbol = UInt16.max

    /// The tables, shared by every copy: a job, a session's tables and a
    /// batch copy the alphabet at every tick, and one reference is one
    /// retain where eight arrays were eight.
    private let storage: TypingAlphabetStorage

    public var alphabet: Alphabet { storage.alphabet }
    /// k, the number of characters.
    public var count: Int { storage.count }
    /// Every character is one byte: texts have `monkeys` bytes, and a
    /// text's bytes are its characters.
    public var isSingleByte: Bool { storage.isSingleByte }
    /// For a single-byte alphabet, the index of the character each byte is
    /// (`noSymbol` for the others); for another alphabet, all `noSymbol`.
    /// How a scan over windows of characters reads a single-byte text.
    public var symbolOfByte: [UInt16] { storage.symbolOfByte }
    /// Each character's UTF-8 bytes, the first in the lowest byte.
    var symbolUTF8: [UInt32] { storage.symbolUTF8 }
    /// Each character's number of bytes.
    var symbolLengths: [UInt8] { storage.symbolLengths }
    /// The longest character's number of bytes.
    var widestSymbol: Int { storage.widestSymbol }
    /// The share of a typed text's bytes that are each byte value, for the
    /// target search's choice of the bytes it filters on.
    var byteShare: [Double] { storage.byteShare }
    /// Unseeded typing reads groups of `groupSize` characters as one digit
    /// of base k^groupSize (see `UniformDigits`); 1 for a multi-byte alphabet.
    var groupSize: Int { storage.groupSize }
    /// The method for those digits; nil for an alphabet of one character,
    /// which needs no randomness.
    var groupDigits: UniformDigits<UInt64>? { storage.groupDigits }
    /// For a single-byte alphabet, each group's bytes, the first character
    /// in the lowest byte: digit d of base k^g stands for the characters of
    /// its g digits in base k, most significant first.
    var groupBytes: [UInt64] { storage.groupBytes }
    /// Seeded typing's rejection threshold, (2^64 − k) mod k.
    var seededThreshold: UInt64 { storage.seededThreshold }

    public static let lowercaseLatin = TypingAlphabet(.lowercaseLatin)

    public init(_ alphabet: Alphabet) {
        storage = TypingAlphabetStorage(alphabet)
    }

    /// The tables for `alphabet`: the default alphabet's are built once and
    /// shared by every session that types it (most do), others anew.
    public static func shared(_ alphabet: Alphabet) -> TypingAlphabet {
        alphabet == .lowercaseLatin ? lowercaseLatin : TypingAlphabet(alphabet)
    }

    /// Characters typed per word drawn, for an unseeded session.
    var charactersPerDraw: Int { groupSize * (groupDigits?.digitsPerDraw ?? 1) }
}

/// What a `TypingAlphabet` holds, built once (see `TypingAlphabet.init`).
private final class TypingAlphabetStorage: Sendable {
    let alphabet: Alphabet
    let count: Int
    let isSingleByte: Bool
    let symbolOfByte: [UInt16]
    let symbolUTF8: [UInt32]
    let symbolLengths: [UInt8]
    let widestSymbol: Int
    let byteShare: [Double]
    let groupSize: Int
    let groupDigits: UniformDigits<UInt64>?
    let groupBytes: [UInt64]
    let seededThreshold: UInt64

    init(_ alphabet: Alphabet) {
        self.alphabet = alphabet
        let scalars = Array(alphabet.text.unicodeScalars)
        let k = scalars.count
        count = k
        var utf8: [UInt32] = []
        var lengths: [UInt8] = []
        var share = [Double](repeating: 0, count: 256)
        var totalBytes = 0
        for scalar in scalars {
            var word: UInt32 = 0
            var length = 0
            for byte in String(scalar).utf8 {
                word |= UInt32(byte) << (8 * length)
                length += 1
                share[Int(byte)] += 1
            }
            utf8.append(word)
            lengths.append(UInt8(length))
            totalBytes += length
        }
        symbolUTF8 = utf8
        symbolLengths = lengths
        widestSymbol = Int(lengths.max() ?? 1)
        byteShare = share.map { $0 / Double(max(totalBytes, 1)) }
        let singleByte = totalBytes == k
        isSingleByte = singleByte
        var symbols = [UInt16](repeating: TypingAlphabet.noSymbol, count: 256)
        if singleByte {
            for (index, word) in utf8.enumerated() { symbols[Int(word)] = UInt16(index) }
        }
        symbolOfByte = symbols
        seededThreshold = k > 0 ? (0 &- UInt64(k)) % UInt64(k) : 0

        var group = 1
        if singleByte {
            var size = k
            while group < 8 && size * k <= TypingAlphabet.groupTableLimit {
                size *= k
                group += 1
            }
        }
        groupSize = group
        guard k >= 2 else {
            groupDigits = nil
            groupBytes = []
            return
        }
        var groupBase = 1
        for _ in 0..<group { groupBase *= k }
        groupDigits = UniformDigits(base: UInt64(groupBase))
        guard singleByte else {
            groupBytes = []
            return
        }
        groupBytes = (0..<groupBase).map { digit in
            var word: UInt64 = 0
            var rest = digit
            // The last character is the least significant digit.
            for position in (0..<group).reversed() {
                word |= UInt64(utf8[rest % k]) << (8 * position)
                rest /= k
            }
            return word
        }
    }
}

/// The tables of a `TypingAlphabet`, lent as pointers for one batch.
struct AlphabetTables {
    let symbolUTF8: UnsafePointer<UInt32>
    let symbolLengths: UnsafePointer<UInt8>
    /// Empty (nil) unless the alphabet is single-byte with 2 or more characters.
    let groupBytes: UnsafePointer<UInt64>?
}

extension TypingAlphabet {
    func withTables<Result>(_ body: (AlphabetTables) -> Result) -> Result {
        symbolUTF8.withUnsafeBufferPointer { utf8 in
            symbolLengths.withUnsafeBufferPointer { lengths in
                groupBytes.withUnsafeBufferPointer { groups in
                    guard let utf8 = utf8.baseAddress, let lengths = lengths.baseAddress else {
                        preconditionFailure("an alphabet has a character")
                    }
                    return body(
                        AlphabetTables(symbolUTF8: utf8, symbolLengths: lengths, groupBytes: groups.baseAddress))
                }
            }
        }
    }
}
