/// One distinct chunk of a corpus (K consecutive characters of a work),
/// named by the corpus position of its first occurrence: stable for a
/// corpus, alphabet and chunk length, and cheap to hand from a typing
/// thread to the owner of the coverage.
public struct ChunkID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The position, in the whole corpus, of the chunk's first character at its first occurrence.
    public let firstPosition: UInt32

    public init(firstPosition: UInt32) {
        self.firstPosition = firstPosition
    }

    public static func < (lhs: ChunkID, rhs: ChunkID) -> Bool { lhs.firstPosition < rhs.firstPosition }

    public var description: String { "chunk@\(firstPosition)" }
}
