/// The characters a session's monkeys type, as distinct Unicode scalars.
///
/// Stored flattened as UTF-8 so that typing one character is a table lookup
/// and a copy, not a `String` operation.
public struct Alphabet: Sendable, Equatable {
    /// The alphabet as the client wrote it.
    public let text: String
    /// The number of distinct characters.
    public let count: Int
    private let bytes: [UInt8]
    /// Byte offset of each character in `bytes`, plus the end offset.
    private let offsets: [Int32]
    private let isSingleByte: Bool

    public static let lowercaseLatin = Alphabet(trusted: "abcdefghijklmnopqrstuvwxyz")

    public enum Problem: Error, Equatable, Sendable {
        case empty
        case tooMany(count: Int, limit: Int)
        case repeated(Character)
        case controlCharacter
    }

    public init(validating text: String, limit: Int) throws(Problem) {
        var seen = Set<Unicode.Scalar>()
        for scalar in text.unicodeScalars {
            if Alphabet.isControl(scalar) { throw .controlCharacter }
            if !seen.insert(scalar).inserted { throw .repeated(Character(scalar)) }
        }
        if seen.isEmpty { throw .empty }
        if seen.count > limit { throw .tooMany(count: seen.count, limit: limit) }
        self.init(trusted: text)
    }

    /// C0 and C1 control characters and DEL, which have no place in typed text.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f..<0xa0).contains(scalar.value)
    }

    private init(trusted text: String) {
        self.text = text
        var bytes: [UInt8] = []
        var offsets: [Int32] = [0]
        for scalar in text.unicodeScalars {
            bytes.append(contentsOf: String(scalar).utf8)
            offsets.append(Int32(bytes.count))
        }
        self.bytes = bytes
        self.offsets = offsets
        self.count = offsets.count - 1
        self.isSingleByte = bytes.count == count
    }

    public static func == (lhs: Alphabet, rhs: Alphabet) -> Bool { lhs.text == rhs.text }

    /// One string of `length` characters, each drawn uniformly.
    public func typeString(length: Int, using random: inout WyRand) -> String {
        let bound = UInt64(count)
        if isSingleByte {
            return bytes.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: length) { output in
                    for index in 0..<length {
                        output[index] = table[Int(random.next(below: bound))]
                    }
                    return length
                }
            }
        }
        let widest = (0..<count).map { offsets[$0 + 1] - offsets[$0] }.max() ?? 1
        return String(unsafeUninitializedCapacity: length * Int(widest)) { output in
            var written = 0
            for _ in 0..<length {
                let symbol = Int(random.next(below: bound))
                for byteIndex in Int(offsets[symbol])..<Int(offsets[symbol + 1]) {
                    output[written] = bytes[byteIndex]
                    written += 1
                }
            }
            return written
        }
    }
}
