/// A work's text as `COVERAGE session work=NAME` shows it: alternating runs
/// of covered and uncovered characters.
extension Coverage {
    /// One run of a work's characters, all covered or all not.
    public struct Segment: Sendable, Equatable {
        /// The offset of its first character within the work.
        public let offset: Int
        public let length: Int
        public let isCovered: Bool
    }

    /// The work's characters as segments, in order, adjacent ones
    /// alternating between covered and not; one segment for a work
    /// covered entirely or not at all.
    public func segments(ofWork work: Int) -> [Segment] {
        let start = workStarts[work]
        let end = start + workCounts[work]
        var segments: [Segment] = []
        var position = start
        while position < end {
            let isCovered = self.isCovered(position)
            let length = sameRun(from: position, to: end, covered: isCovered)
            segments.append(Segment(offset: position - start, length: length, isCovered: isCovered))
            position += length
        }
        return segments
    }

    /// How many characters from `position` (before `end`) are covered (or
    /// not, as `covered` says), a word at a time.
    private func sameRun(from position: Int, to end: Int, covered: Bool) -> Int {
        var next = position
        while next < end {
            let word = covered ? ~words[next >> 6] : words[next >> 6]
            // Bits of the other kind from this character on.
            let other = word >> UInt64(next & 63)
            if other == 0 {
                next += 64 - (next & 63)
                continue
            }
            next += other.trailingZeroBitCount
            break
        }
        return min(next, end) - position
    }
}
