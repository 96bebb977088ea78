/// Finds a session's target, and how much of it, in each typed text of a
/// batch: what `TargetMatcher` decides, over bytes, without a `String`.
///
/// A text is searched only for the one prefix that could change something
/// (`TypingTarget.needle`), so most texts cost one pass of the filter
/// (`NeedleFilter`) and nothing else; the filter for the current needle is
/// kept while best progress stays where it is.
struct TargetSearch {
    let target: TypingTarget
    private var filter: NeedleFilter?

    init(_ target: TypingTarget) {
        self.target = target
    }

    /// Searches one text after a best of `best` characters; moves `best`
    /// on and tells whether the text is a hit.
    mutating func search(_ text: UnsafeBufferPointer<UInt8>, best: inout Int) -> Bool {
        guard let base = text.baseAddress else { return false }
        var start = 0
        while let characters = target.needle(after: best) {
            guard let found = firstPlace(of: characters, in: base, count: text.count, from: start) else {
                return false
            }
            let matched = target.characters(inBytes: commonBytes(at: found, in: base, count: text.count))
            if matched == target.length {
                best = matched
                return true
            }
            best = matched
            start = found + 1
        }
        return false
    }

    /// How many bytes of the target the text holds at `place` (at least
    /// the needle's, which the filter's caller checked).
    private func commonBytes(at place: Int, in text: UnsafePointer<UInt8>, count: Int) -> Int {
        target.bytes.withUnsafeBufferPointer { target in
            let limit = min(target.count, count - place)
            var matched = 0
            while matched < limit && text[place + matched] == target[matched] { matched += 1 }
            return matched
        }
    }

    /// The first place at or after `start` where the text holds the
    /// target's prefix of `characters` characters.
    private mutating func firstPlace(
        of characters: Int, in text: UnsafePointer<UInt8>, count: Int, from start: Int
    ) -> Int? {
        let needleCount = target.prefixBytes[characters]
        guard count - start >= needleCount else { return nil }
        // Places a 16-byte block may start before: every byte it reads lies within the text.
        let blockEnd = count - needleCount - 14
        // Made only for texts long enough for blocks: a session of a few
        // monkeys never needs one.
        if start < blockEnd && filter?.characters != characters {
            filter = NeedleFilter(target: target, characters: characters)
        }
        let filter = self.filter
        return target.bytes.withUnsafeBufferPointer { needle -> Int? in
            guard let needle = needle.baseAddress else { return nil }
            var place = start
            if place < blockEnd, let filter {
                let found: Int?
                switch filter.width {
                case 1: found = Self.scanBlocks(filter, 1, text, needle, from: &place, to: blockEnd)
                case 2: found = Self.scanBlocks(filter, 2, text, needle, from: &place, to: blockEnd)
                case 4: found = Self.scanBlocks(filter, 4, text, needle, from: &place, to: blockEnd)
                default: found = Self.scanBlocks(filter, 8, text, needle, from: &place, to: blockEnd)
                }
                if let found { return found }
            }
            let last = count - needleCount
            let first = needle[0]
            while place <= last {
                if text[place] == first && Self.holds(needle, needleCount, text + place) { return place }
                place += 1
            }
            return nil
        }
    }

    /// The block loop: 16 places a block, two blocks a step, each place
    /// first checked on the filter's `width` bytes (a constant where it is
    /// inlined). Pointers and wrapping arithmetic keep the loop in registers.
    @inline(__always)
    private static func scanBlocks(
        _ filter: NeedleFilter, _ width: Int, _ text: UnsafePointer<UInt8>, _ needle: UnsafePointer<UInt8>,
        from place: inout Int, to end: Int
    ) -> Int? {
        let raw = UnsafeRawPointer(text)
        let offsets = filter.offsets
        let (offset0, offset1, offset2, offset3) = (Int(offsets[0]), Int(offsets[1]), Int(offsets[2]), Int(offsets[3]))
        let (offset4, offset5, offset6, offset7) = (Int(offsets[4]), Int(offsets[5]), Int(offsets[6]), Int(offsets[7]))
        let bytes = filter.bytes
        let byte0 = SIMD16<UInt8>(repeating: bytes[0])
        let byte1 = SIMD16<UInt8>(repeating: bytes[1])
        let byte2 = SIMD16<UInt8>(repeating: bytes[2])
        let byte3 = SIMD16<UInt8>(repeating: bytes[3])
        let byte4 = SIMD16<UInt8>(repeating: bytes[4])
        let byte5 = SIMD16<UInt8>(repeating: bytes[5])
        let byte6 = SIMD16<UInt8>(repeating: bytes[6])
        let byte7 = SIMD16<UInt8>(repeating: bytes[7])
        let needleCount = filter.byteCount
        /// The lanes of the block at `block` whose place passes the
        /// filter, as all ones in their byte of two words (read as words,
        /// not with `any`, which the optimiser does not always inline).
        @inline(__always)
        func passing(_ block: UnsafeRawPointer) -> SIMD2<UInt64> {
            var mask = block.loadUnaligned(fromByteOffset: offset0, as: SIMD16<UInt8>.self) .== byte0
            if width >= 2 {
                mask .&= block.loadUnaligned(fromByteOffset: offset1, as: SIMD16<UInt8>.self) .== byte1
            }
            if width >= 4 {
                mask .&= block.loadUnaligned(fromByteOffset: offset2, as: SIMD16<UInt8>.self) .== byte2
                mask .&= block.loadUnaligned(fromByteOffset: offset3, as: SIMD16<UInt8>.self) .== byte3
            }
            if width >= 8 {
                mask .&= block.loadUnaligned(fromByteOffset: offset4, as: SIMD16<UInt8>.self) .== byte4
                mask .&= block.loadUnaligned(fromByteOffset: offset5, as: SIMD16<UInt8>.self) .== byte5
                mask .&= block.loadUnaligned(fromByteOffset: offset6, as: SIMD16<UInt8>.self) .== byte6
                mask .&= block.loadUnaligned(fromByteOffset: offset7, as: SIMD16<UInt8>.self) .== byte7
            }
            return unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        }
        /// The first place of the block at `start` that holds the needle.
        func firstHolding(_ lanes: SIMD2<UInt64>, _ start: Int) -> Int? {
            for half in 0..<2 {
                // One bit per lane, the lowest of its byte.
                var bits = lanes[half] & 0x0101_0101_0101_0101
                while bits != 0 {
                    let candidate = start + half * 8 + bits.trailingZeroBitCount / 8
                    if holds(needle, needleCount, text + candidate) { return candidate }
                    bits &= bits &- 1
                }
            }
            return nil
        }
        var block = raw + place
        let last = raw + end
        while last - block > 16 {
            let first = passing(block)
            let second = passing(block + 16)
            if (first | second) != .zero {
                let start = block - raw
                if let found = firstHolding(first, start) ?? firstHolding(second, start + 16) { return found }
            }
            block += 32
        }
        if block < last {
            let lanes = passing(block)
            if lanes != .zero, let found = firstHolding(lanes, block - raw) { return found }
            block += 16
        }
        place = block - raw
        return nil
    }

    /// Whether the text at `text` starts with the needle's `count` bytes.
    @inline(__always)
    private static func holds(_ needle: UnsafePointer<UInt8>, _ count: Int, _ text: UnsafePointer<UInt8>) -> Bool {
        var index = 0
        let raw = UnsafeRawPointer(text)
        let needleRaw = UnsafeRawPointer(needle)
        while index + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                != needleRaw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                return false
            }
            index += 8
        }
        while index < count {
            if text[index] != needle[index] { return false }
            index += 1
        }
        return true
    }
}
