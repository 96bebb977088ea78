/// Coverage as protocol lines, for uniting the coverage of the same
/// experiment on several hosts: each line one work's bits from an offset,
/// at most `maximumBits` of them, in base64 (RFC 4648, padded). Within a
/// line, the character at offset + 8j + b is bit b (least significant
/// first) of byte j; bits past the line's characters are zero.
public enum CoverageBitmap {
    /// Characters a line carries at most: 384 bytes, 512 base64 characters.
    public static let maximumBits = 3072

    /// One line's data: a work, the offset of its first character in the work, the bits.
    public struct Line: Sendable, Equatable {
        public let work: Int
        public let offset: Int
        /// How many characters the line covers (its last byte may hold fewer than 8).
        public let count: Int
        public let base64: String
    }

    /// The lines of `coverage`, work by work, in order.
    public static func lines(of coverage: Coverage, maximumBits: Int = Self.maximumBits) -> [Line] {
        precondition(maximumBits > 0 && maximumBits % 8 == 0, "whole bytes per line")
        var lines: [Line] = []
        for work in 0..<coverage.workCount {
            let start = coverage.workStarts[work]
            let characters = coverage.workCounts[work]
            var offset = 0
            while offset < characters {
                let count = min(maximumBits, characters - offset)
                var bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
                for bit in 0..<count where coverage.isCovered(start + offset + bit) {
                    bytes[bit >> 3] |= 1 << UInt8(bit & 7)
                }
                lines.append(Line(work: work, offset: offset, count: count, base64: Base64.encode(bytes)))
                offset += count
            }
        }
        return lines
    }

    /// Why a line cannot be united with a coverage.
    public enum Problem: Error, Sendable, Equatable {
        case noSuchWork(Int)
        case outOfRange(offset: Int)
        case notBase64
    }

    /// Covers in `coverage` every character whose bit is set in `base64`
    /// (work `work`, from `offset`): the union, as `monkeyctl -H … coverage`
    /// makes it. Answers the characters newly covered; changes nothing on
    /// a problem.
    public static func unite(
        _ coverage: inout Coverage, work: Int, offset: Int, base64: String
    ) throws(Problem) -> Int {
        guard (0..<coverage.workCount).contains(work) else { throw .noSuchWork(work) }
        guard let bytes = Base64.decode(base64) else { throw .notBase64 }
        let characters = coverage.workCounts[work]
        guard offset >= 0, offset <= characters else { throw .outOfRange(offset: offset) }
        // Bits past the work's end must be clear.
        for bit in (characters - offset)..<max(characters - offset, bytes.count * 8)
        where bytes[bit >> 3] >> UInt8(bit & 7) & 1 != 0 {
            throw .outOfRange(offset: offset + bit)
        }
        let start = coverage.workStarts[work] + offset
        var added = 0
        var completed: [Int] = []
        for bit in 0..<min(bytes.count * 8, characters - offset) where bytes[bit >> 3] >> UInt8(bit & 7) & 1 != 0 {
            added += coverage.cover(start + bit..<(start + bit + 1), completed: &completed)
        }
        return added
    }
}
