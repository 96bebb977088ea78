/// Which bytes of a needle the target search compares first, 16 places of
/// the text at a time, before it compares the whole needle at a place that
/// passed (the "generic SIMD" substring search of Muła, with more than two
/// bytes when the alphabet is small).
///
/// The bytes are chosen by how rarely they are typed (`byteShare`), until
/// a place passes by chance less than once in 256: two bytes for 26
/// letters, eight for two letters. Their number is padded to 1, 2, 4 or 8
/// by repeating one, so that the scan loop has a fixed shape.
struct NeedleFilter {
    /// The needle is the target's prefix of this many characters...
    let characters: Int
    /// ...and this many bytes.
    let byteCount: Int
    /// Offsets into the needle of the bytes compared, `width` of them.
    let offsets: SIMD8<Int32>
    /// Those bytes.
    let bytes: SIMD8<UInt8>
    /// 1, 2, 4 or 8.
    let width: Int

    /// The most places of a needle weighed, so that choosing stays cheap
    /// for the longest targets.
    static let placesWeighed = 64

    init(target: TypingTarget, characters: Int) {
        self.characters = characters
        let count = target.prefixBytes[characters]
        byteCount = count
        // Places in the order they are preferred when their bytes are as
        // rare: the last, the first, then halves of the gaps, so that the
        // bytes compared lie apart.
        var order = [count - 1]
        if count > 1 { order.append(0) }
        var gaps = [(0, count - 1)]
        while order.count < min(count, Self.placesWeighed), !gaps.isEmpty {
            var next: [(Int, Int)] = []
            for (low, high) in gaps where high - low > 1 {
                let middle = (low + high) / 2
                if order.count < Self.placesWeighed { order.append(middle) }
                next.append((low, middle))
                next.append((middle, high))
            }
            gaps = next
        }
        let weighed = order.enumerated().sorted {
            let left = target.byteShare[Int(target.bytes[$0.element])]
            let right = target.byteShare[Int(target.bytes[$1.element])]
            return left != right ? left < right : $0.offset < $1.offset
        }
        var chosen: [Int] = []
        var chance = 1.0
        for (_, place) in weighed where chosen.count < 8 && chance > 1.0 / 256 {
            chosen.append(place)
            chance *= target.byteShare[Int(target.bytes[place])]
        }
        var width = 1
        while width < chosen.count { width *= 2 }
        var offsets = SIMD8<Int32>(repeating: 0)
        var bytes = SIMD8<UInt8>(repeating: 0)
        for lane in 0..<8 {
            let place = chosen[min(lane, chosen.count - 1)]
            offsets[lane] = Int32(place)
            bytes[lane] = target.bytes[place]
        }
        self.offsets = offsets
        self.bytes = bytes
        self.width = width
    }
}
