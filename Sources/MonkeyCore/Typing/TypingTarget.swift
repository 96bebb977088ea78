/// A session's target made ready for the typing kernel, for one alphabet:
/// built when the target or the alphabet is set, never per batch.
///
/// The same rules as `TargetMatcher`, over bytes: an entry is a hit when
/// its text contains the whole (non-empty) target; best progress is the
/// longest prefix of the target, in characters, that any text contains.
/// Prefixes are nested, so a text improves a best of b characters exactly
/// when it contains the prefix of b + 1 characters. A prefix holding a
/// character the alphabet lacks can never be typed: no search looks for it.
public struct TypingTarget: Sendable {
    /// The tables, shared by every copy (see `TypingAlphabet.storage`).
    private let storage: TypingTargetStorage

    public var matcher: TargetMatcher { storage.matcher }
    /// The target's UTF-8 bytes.
    var bytes: [UInt8] { storage.bytes }
    /// The byte length of the prefix of n characters, n = 0...length.
    var prefixBytes: [Int] { storage.prefixBytes }
    /// The target's length in characters.
    public var length: Int { storage.length }
    /// The longest prefix, in characters, made only of the alphabet's
    /// characters: best progress never passes it, and a target longer than
    /// it is never hit.
    public var reachable: Int { storage.reachable }
    /// The share of typed bytes that are each byte value (the alphabet's).
    var byteShare: [Double] { storage.byteShare }

    public init(_ matcher: TargetMatcher, alphabet: TypingAlphabet) {
        storage = TypingTargetStorage(matcher, alphabet: alphabet)
    }

    public var isEmpty: Bool { length == 0 }

    /// The prefix, in characters, that an entry must contain to change
    /// anything after a best of `best`: the next longer prefix, the whole
    /// target once it was seen (to count hits), or nil when nothing can.
    func needle(after best: Int) -> Int? {
        if best < reachable { return best + 1 }
        if best >= length && reachable == length && length > 0 { return length }
        return nil
    }

    /// The longest prefix, in characters, of at most `byteCount` bytes.
    func characters(inBytes byteCount: Int) -> Int {
        // Binary search over the increasing prefix lengths.
        var low = 0
        var high = length
        while low < high {
            let middle = (low + high + 1) / 2
            if prefixBytes[middle] <= byteCount { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// What a `TypingTarget` holds, built once (see `TypingTarget.init`).
private final class TypingTargetStorage: Sendable {
    let matcher: TargetMatcher
    let bytes: [UInt8]
    let prefixBytes: [Int]
    let length: Int
    let reachable: Int
    let byteShare: [Double]

    init(_ matcher: TargetMatcher, alphabet: TypingAlphabet) {
        self.matcher = matcher
        bytes = Array(matcher.target.utf8)
        let known = Set(alphabet.alphabet.text.unicodeScalars)
        var lengths = [0]
        var total = 0
        var reachable = 0
        var stillReachable = true
        for scalar in matcher.target.unicodeScalars {
            total += String(scalar).utf8.count
            lengths.append(total)
            stillReachable = stillReachable && known.contains(scalar)
            if stillReachable { reachable += 1 }
        }
        prefixBytes = lengths
        length = lengths.count - 1
        self.reachable = reachable
        byteShare = alphabet.byteShare
    }
}
