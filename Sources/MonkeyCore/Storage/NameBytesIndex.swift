/// Numbers names given as bytes (0, 1, 2… in the order they are first
/// added) and finds a name's number without making a `String` of it.
///
/// A fold of the entries journal finds the session of each of millions of
/// entries whose names lie in the journal's bytes; a `String`, its
/// validation as a `SessionName` and a `Dictionary` lookup took about a
/// sixth of the fold. Open addressing over the names' 64-bit FNV-1a hashes,
/// at most half full, the names kept end to end in one array. A slot holds
/// the high half of its name's hash beside the number, and a name's place
/// and length are one word: with 10,000 sessions these tables are out of
/// the cache at every entry, and each array read before the bytes are
/// compared was one more miss.
public struct NameBytesIndex: Sendable {
    /// Each slot holds the high 32 bits of a name's hash and its number + 1
    /// in the low 32, or 0 when empty; a power of two long.
    private var slots: [UInt64] = Array(repeating: 0, count: 16)
    /// Name `n` is `names[start..<start + length]`, its span holding the start in its high 32 bits.
    private var spans: [UInt64] = []
    private var names: [UInt8] = []

    public init() {}

    /// How many names it holds.
    public var count: Int { spans.count }

    /// The number of `name`, or nil if it was never added.
    public func number(of name: UnsafeRawBufferPointer) -> Int? {
        let hash = Self.hash(name)
        let tag = Self.tag(hash)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                let held = slots[slot]
                if held & Self.tagMask == tag {
                    let number = Int(truncatingIfNeeded: held & ~Self.tagMask) - 1
                    if isName(number, name) { return number }
                }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    /// Whether `name` is the one numbered `number`: a fold that can guess
    /// a name's number checks it so, without hashing the name and with
    /// the tables' lines it will read next already in the cache.
    public func isNumber(_ number: Int, of name: UnsafeRawBufferPointer) -> Bool {
        number >= 0 && number < count && isName(number, name)
    }

    /// Adds `name`, which it does not hold yet, and returns its number.
    public mutating func add(_ name: UnsafeRawBufferPointer) -> Int {
        precondition(number(of: name) == nil, "a name is added once")
        precondition(
            count < Int(UInt32.max) && names.count + name.count <= Int(UInt32.max), "numbers and spans fit in 32 bits")
        if 2 * (count + 1) > slots.count { grow() }
        let number = count
        spans.append(UInt64(names.count) << 32 | UInt64(name.count))
        names.append(contentsOf: name)
        place(number, hash: Self.hash(name))
        return number
    }

    private static let tagMask: UInt64 = 0xFFFF_FFFF_0000_0000

    /// The high half of the hash: the slot is taken from the low bits.
    private static func tag(_ hash: UInt64) -> UInt64 { hash & tagMask }

    private func isName(_ number: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        let span = spans[number]
        guard Int(truncatingIfNeeded: span & 0xFFFF_FFFF) == name.count else { return false }
        let start = Int(truncatingIfNeeded: span >> 32)
        return names.withUnsafeBytes { stored in
            for offset in 0..<name.count where stored[start + offset] != name[offset] { return false }
            return true
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for number in spans.indices {
            let span = spans[number]
            let start = Int(truncatingIfNeeded: span >> 32)
            let end = start + Int(truncatingIfNeeded: span & 0xFFFF_FFFF)
            let hash = names.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            place(number, hash: hash)
        }
    }

    private mutating func place(_ number: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Self.tag(hash) | UInt64(number + 1)
    }

    /// FNV-1a, with the high half folded in: the slot is taken from the low bits.
    static func hash(_ name: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash ^ (hash >> 32)
    }
}
