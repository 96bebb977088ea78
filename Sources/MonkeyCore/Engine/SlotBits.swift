/// A set of session slots, one bit each: asked about thousands of slots at
/// every wake-up, where a `Set<Int>` would hash each one.
struct SlotBits: Sendable {
    private var words: [UInt64] = []
    /// How many slots are in it.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    func contains(_ slot: Int) -> Bool {
        let word = slot >> 6
        return word < words.count && words[word] & (1 << UInt64(slot & 63)) != 0
    }

    mutating func insert(_ slot: Int) {
        let word = slot >> 6
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
        let bit: UInt64 = 1 << UInt64(slot & 63)
        guard words[word] & bit == 0 else { return }
        words[word] |= bit
        count += 1
    }

    mutating func remove(_ slot: Int) {
        let word = slot >> 6
        let bit: UInt64 = 1 << UInt64(slot & 63)
        guard word < words.count, words[word] & bit != 0 else { return }
        words[word] &= ~bit
        count -= 1
    }
}
