/// Finds a session's target, and how much of it, in typed text.
///
/// Works on UTF-8 bytes; prefixes are cut only at character boundaries.
public struct TargetMatcher: Sendable, Equatable {
    public let target: String
    private let bytes: [UInt8]
    /// Byte length of the target's prefix of `n` characters, for n = 0...count.
    private let prefixByteLengths: [Int]

    public init(target: String) {
        self.target = target
        self.bytes = Array(target.utf8)
        var lengths = [0]
        var total = 0
        for scalar in target.unicodeScalars {
            total += String(scalar).utf8.count
            lengths.append(total)
        }
        self.prefixByteLengths = lengths
    }

    public var isEmpty: Bool { bytes.isEmpty }
    /// Length of the target in characters.
    public var length: Int { prefixByteLengths.count - 1 }

    /// True if the text contains the whole (non-empty) target.
    public func isHit(_ text: String) -> Bool {
        !bytes.isEmpty && contains(prefixBytes: bytes.count, in: text)
    }

    /// The longest prefix (in characters) of the target found in the text,
    /// looking only for prefixes longer than `known`.
    public func longestPrefix(in text: String, longerThan known: Int) -> Int {
        var best = known
        while best < length && contains(prefixBytes: prefixByteLengths[best + 1], in: text) {
            best += 1
        }
        return best
    }

    /// The prefix of `characters` characters, as text.
    public func prefix(characters: Int) -> String {
        String(decoding: bytes[0..<prefixByteLengths[min(characters, length)]], as: UTF8.self)
    }

    private func contains(prefixBytes needleLength: Int, in text: String) -> Bool {
        var text = text
        return text.withUTF8 { haystack in
            bytes.withUnsafeBufferPointer { needle in
                TargetMatcher.search(needle: needle, length: needleLength, in: haystack)
            }
        }
    }

    private static func search(
        needle: UnsafeBufferPointer<UInt8>, length: Int, in haystack: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard length > 0 else { return true }
        guard haystack.count >= length else { return false }
        let first = needle[0]
        var start = 0
        let lastStart = haystack.count - length
        while start <= lastStart {
            if haystack[start] == first {
                var matched = 1
                while matched < length && haystack[start + matched] == needle[matched] { matched += 1 }
                if matched == length { return true }
            }
            start += 1
        }
        return false
    }
}
