/// Texts typed one after another into one buffer: a batch's kept entries,
/// or the texts of its hits.
public struct TypedTexts: Sendable, Equatable {
    /// Every text's bytes, one after another.
    public let bytes: [UInt8]
    /// The end offset of each text; empty when every text has `stride`
    /// bytes (an alphabet of single bytes).
    private let ends: [Int]
    private let stride: Int
    public let count: Int

    /// `count` texts of `stride` bytes each.
    init(bytes: [UInt8], stride: Int, count: Int) {
        precondition(bytes.count == stride * count, "every text has stride bytes")
        self.bytes = bytes
        self.ends = []
        self.stride = stride
        self.count = count
    }

    /// Texts ending at `ends`.
    init(bytes: [UInt8], ends: [Int]) {
        precondition(ends.last ?? 0 == bytes.count, "the last text ends at the end")
        self.bytes = bytes
        self.ends = ends
        self.stride = 0
        self.count = ends.count
    }

    public static let none = TypedTexts(bytes: [], stride: 0, count: 0)

    /// Where text `index` lies in `bytes`.
    public func range(at index: Int) -> Range<Int> {
        precondition(index >= 0 && index < count, "no text at this index")
        if ends.isEmpty { return index * stride..<(index + 1) * stride }
        return (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    /// Text `index` as a `String`, for a person or the protocol.
    public func string(at index: Int) -> String {
        let range = range(at: index)
        return bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self)
        }
    }
}
