/// Eight consecutive entries of one log in one allocation, each packed
/// into 24 bytes (see `PackedEntry`): a log's full chunk, which never
/// changes, so that copies of the log share it.
final class EntryChunk: Sendable {
    typealias Slots = InlineArray<8, PackedEntry>
    static let size = Slots.count
    private let slots: Slots
    /// Texts too long to pack, in the order their entries were written.
    private let longTexts: [String]

    init(_ filled: FillingChunk) {
        slots = filled.slots
        longTexts = filled.longTexts
    }

    subscript(slot: Int) -> Entry { PackedEntry.entry(slots[slot], longTexts: longTexts) }
}

/// The chunk a log is filling, held in the log itself (see `EntryLog`);
/// once full it becomes an `EntryChunk`. Writing slot 0 starts it afresh.
struct FillingChunk {
    fileprivate(set) var slots = EntryChunk.Slots(
        repeating: PackedEntry(id: 0, number: 0, isHit: false, longTextIndex: 0))
    fileprivate(set) var longTexts: [String] = []

    subscript(slot: Int) -> Entry { PackedEntry.entry(slots[slot], longTexts: longTexts) }

    mutating func write(_ entry: Entry, toSlot slot: Int) {
        let inline = entry.text.withUTF8Bytes { bytes in
            bytes.count <= PackedEntry.inlineCapacity
                ? PackedEntry(id: entry.id, number: entry.number, isHit: entry.isHit, inlineText: bytes) : nil
        }
        write(inline, id: entry.id, number: entry.number, isHit: entry.isHit, toSlot: slot) { entry.text }
    }

    /// Writes an entry whose text is `text`, in UTF-8.
    mutating func write(
        id: UInt64, number: UInt64, isHit: Bool, text: UnsafeBufferPointer<UInt8>, toSlot slot: Int
    ) {
        let inline =
            text.count <= PackedEntry.inlineCapacity
            ? PackedEntry(id: id, number: number, isHit: isHit, inlineText: text) : nil
        write(inline, id: id, number: number, isHit: isHit, toSlot: slot) { String(decoding: text, as: UTF8.self) }
    }

    /// Writes `inline`, or when the text does not fit (nil) the entry
    /// pointing at `longText` in the list.
    private mutating func write(
        _ inline: PackedEntry?, id: UInt64, number: UInt64, isHit: Bool, toSlot slot: Int, longText: () -> String
    ) {
        if slot == 0 { longTexts.removeAll() }
        if let inline {
            slots[slot] = inline
        } else {
            slots[slot] = PackedEntry(id: id, number: number, isHit: isHit, longTextIndex: longTexts.count)
            longTexts.append(longText())
        }
    }
}

/// An entry in 24 bytes. A text of up to seven UTF-8 bytes (five monkeys
/// typing ASCII need five) lies in the entry itself; a longer one lies in
/// its chunk's list, and the entry holds its index there.
struct PackedEntry {
    static let inlineCapacity = 7
    private static let longMarker: UInt64 = 0x0F

    let id: UInt64
    let number: UInt64
    /// Bytes 0-6: the text, or the long text's index; byte 7: the text's
    /// length (`longMarker` for a long text) in bits 0-3, the hit flag in bit 7.
    private let word: UInt64

    init(id: UInt64, number: UInt64, isHit: Bool, inlineText bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= Self.inlineCapacity, "an inline text has at most seven bytes")
        self.init(id: id, number: number, isHit: isHit, word: UInt64(bytes.count) << 56 | Self.word(of: bytes))
    }

    /// Up to seven bytes as the low bytes of a word, the first lowest: in
    /// two loads that may overlap (or three for fewer than four bytes),
    /// none past the text. A loop over the bytes was a thirtieth of a tick.
    @inline(__always)
    static func word(of bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return 0 }
        guard count >= 4 else {
            // The first, the middle and the last byte: some are the same one.
            let middle = count / 2
            return UInt64(base[0]) | UInt64(base[middle]) << (8 * UInt64(middle))
                | UInt64(base[count - 1]) << (8 * UInt64(count - 1))
        }
        let raw = UnsafeRawPointer(base)
        let low = UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))
        let high = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        return UInt64(low) | UInt64(high) << (8 * UInt64(count - 4))
    }

    init(id: UInt64, number: UInt64, isHit: Bool, longTextIndex: Int) {
        self.init(id: id, number: number, isHit: isHit, word: Self.longMarker << 56 | UInt64(longTextIndex))
    }

    private init(id: UInt64, number: UInt64, isHit: Bool, word: UInt64) {
        self.id = id
        self.number = number
        self.word = isHit ? word | 1 << 63 : word
    }

    var isHit: Bool { word >> 63 != 0 }

    private var length: UInt64 { word >> 56 & 0x0F }

    /// Where the text lies in the chunk's list; nil if it is inline.
    var longTextIndex: Int? {
        length == Self.longMarker ? Int(truncatingIfNeeded: word & 0xFF_FFFF_FFFF_FFFF) : nil
    }

    /// The entry `packed` holds, its long text (if it has one) in `longTexts`.
    static func entry(_ packed: PackedEntry, longTexts: [String]) -> Entry {
        let text = packed.longTextIndex.map { longTexts[$0] } ?? packed.inlineText
        return Entry(id: packed.id, number: packed.number, text: text, isHit: packed.isHit)
    }

    /// The inline text (meaningful only when `longTextIndex` is nil).
    var inlineText: String {
        withUnsafeBytes(of: word.littleEndian) { String(decoding: $0.prefix(Int(length)), as: UTF8.self) }
    }
}
