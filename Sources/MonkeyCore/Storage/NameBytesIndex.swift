/// Numbers names given as bytes (0, 1, 2… in the order they are first
/// added) and finds a name's number without making a `String` of it.
///
/// A fold of the entries journal finds the session of each of millions of
/// entries whose names lie in the journal's bytes; a `String`, its
/// validation as a `SessionName` and a `Dictionary` lookup took about a
/// sixth of the fold. Open addressing over the names' 64-bit FNV-1a hashes,
/// at most half full, the names kept end to end in one array.
public struct NameBytesIndex: Sendable {
    /// Each slot holds a name's number + 1, or 0 when empty; a power of two long.
    private var slots: [Int32] = Array(repeating: 0, count: 16)
    private var hashes: [UInt64] = []
    /// Name `n` is `names[starts[n]..<starts[n + 1]]`.
    private var names: [UInt8] = []
    private var starts: [Int] = [0]

    public init() {}

    /// How many names it holds.
    public var count: Int { hashes.count }

    /// The number of `name`, or nil if it was never added.
    public func number(of name: UnsafeRawBufferPointer) -> Int? {
        let hash = Self.hash(name)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                let number = Int(slots[slot]) - 1
                if hashes[number] == hash && isName(number, name) { return number }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    /// Adds `name`, which it does not hold yet, and returns its number.
    public mutating func add(_ name: UnsafeRawBufferPointer) -> Int {
        precondition(number(of: name) == nil, "a name is added once")
        if 2 * (count + 1) > slots.count { grow() }
        let number = count
        let hash = Self.hash(name)
        hashes.append(hash)
        names.append(contentsOf: name)
        starts.append(names.count)
        place(number, hash: hash)
        return number
    }

    private func isName(_ number: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        let (start, end) = (starts[number], starts[number + 1])
        guard end - start == name.count else { return false }
        return names.withUnsafeBytes { stored in
            for offset in 0..<name.count where stored[start + offset] != name[offset] { return false }
            return true
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for (number, hash) in hashes.enumerated() { place(number, hash: hash) }
    }

    private mutating func place(_ number: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(number + 1)
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
