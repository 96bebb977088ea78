/// The digest that tells whether two hosts run the same experiment: the
/// same normalised works under the same names, the same alphabet and the
/// same chunk length, so that coverage bitmaps line up character for
/// character. Also what ties a coverage file to its corpus.
///
/// SHA-256, written as 64 lowercase hexadecimal digits, of these bytes
/// (integers little-endian):
///
///     "monkeyd corpus 1\n"
///     u32 length, then the alphabet's UTF-8
///     u32 K, the chunk length
///     u32 the number of works
///     for each work in order: u32 length and the name's UTF-8,
///         u64 length and the normalised text's UTF-8
public struct CorpusDigest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest")
        self.bytes = bytes
    }

    /// The digest of `corpus` at chunk length `chunkLength`.
    public init(corpus: Corpus, chunkLength: Int) {
        var hash = SHA256()
        hash.update(Array("monkeyd corpus 1\n".utf8))
        let alphabet = Array(corpus.alphabet.alphabet.text.utf8)
        hash.update(Self.littleEndian(UInt32(alphabet.count)))
        hash.update(alphabet)
        hash.update(Self.littleEndian(UInt32(chunkLength)))
        hash.update(Self.littleEndian(UInt32(corpus.works.count)))
        let alphabetBytes = corpus.alphabet.utf8Bytes
        let offsets = corpus.alphabet.utf8Offsets
        var text: [UInt8] = []
        for work in corpus.works {
            let name = Array(work.name.utf8)
            hash.update(Self.littleEndian(UInt32(name.count)))
            hash.update(name)
            text.removeAll(keepingCapacity: true)
            if corpus.alphabet.isSingleByte {
                text.append(contentsOf: corpus.symbols[work.range].lazy.map { alphabetBytes[Int($0)] })
            } else {
                for symbol in corpus.symbols[work.range] {
                    for index in offsets[Int(symbol)]..<offsets[Int(symbol) + 1] { text.append(alphabetBytes[index]) }
                }
            }
            hash.update(Self.littleEndian(UInt64(text.count)))
            hash.update(text)
        }
        bytes = hash.finish()
    }

    /// The digest of the hexadecimal spelling `description` writes, or nil.
    public init?(hexadecimal text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// 64 lowercase hexadecimal digits.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func littleEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}
