/// Where a typed entry lies in a `JournalBatch`, for `JournalGrouping`, in
/// one word: its session's grouping key (25 bits of a hash of its name and
/// epoch), the length of its group of one (16 bits) and that group's
/// offset in the batch's records (23 bits: a batch larger than 8 MiB is
/// not grouped).
///
/// The key takes every bit an offset and a length leave: with 16 bits,
/// 10,000 sessions shared keys in some 700 pairs, whose entries then
/// interleaved in groups of one: two thirds of a fold's groups, and a
/// tenth of the journal's bytes spent on their heads.
public enum EntryPlace {
    static let offsetBits = 23
    static let lengthBits = 16
    static let keyShift = offsetBits + lengthBits
    /// The bits of the key the counting sort takes first (the highest).
    static let bucketShift = UInt64.bitWidth - 16

    /// The longest group of one, and the first offset, a place cannot hold.
    public static let lengthLimit = 1 << lengthBits
    public static let offsetLimit = 1 << offsetBits

    /// The key of a session named with hash `nameHash` (`JournalBatch.nameHash(of:)`) typing under `epoch`.
    @inline(__always)
    static func key(nameHash: UInt64, epoch: UInt64) -> UInt64 {
        (nameHash ^ epoch) &* 0x9E37_79B9_7F4A_7C15
    }

    /// The place of a group of one of `length` bytes at `offset`, both below their limits.
    @inline(__always)
    static func place(key: UInt64, length: Int, offset: Int) -> UInt64 {
        (key >> keyShift) << keyShift | UInt64(truncatingIfNeeded: length) << offsetBits
            | UInt64(truncatingIfNeeded: offset)
    }

    @inline(__always)
    public static func offset(_ place: UInt64) -> Int {
        Int(truncatingIfNeeded: place & (1 << offsetBits - 1))
    }

    @inline(__always)
    public static func length(_ place: UInt64) -> Int {
        Int(truncatingIfNeeded: place >> offsetBits & (1 << lengthBits - 1))
    }

    /// The session's whole key as the place holds it.
    @inline(__always)
    public static func key(_ place: UInt64) -> UInt64 { place >> keyShift }

    /// The key's highest 16 bits, by which the counting sort orders places.
    @inline(__always)
    static func bucket(_ place: UInt64) -> Int { Int(truncatingIfNeeded: place >> bucketShift) }
}
