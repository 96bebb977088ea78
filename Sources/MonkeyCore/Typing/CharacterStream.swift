/// The characters of an unseeded batch, one stream across its entries:
/// each accepted draw gives `charactersPerDraw` independent uniform
/// characters (`UniformDigits` over groups of characters), and what an
/// entry leaves of a draw starts the next one, so that no draw is wasted on
/// entry boundaries. What is left at the end of a batch is dropped.
///
/// Writes through raw pointers that the `Typist` lends for one batch.
struct CharacterStream {
    private(set) var random: WyRand
    private let digits: UniformDigits<UInt64>
    /// Group digits per draw, and characters per group and per draw.
    private let steps: Int
    private let groupSize: Int
    private let charactersPerDraw: Int
    /// Single-byte alphabets: each group's bytes (`TypingAlphabet.groupBytes`).
    private let groupBytes: UnsafePointer<UInt64>?
    /// What is left of the last draw: bytes (single-byte alphabets) or
    /// symbols, `carryStart ..< charactersPerDraw`.
    private let carryBytes: UnsafeMutablePointer<UInt8>
    private let carrySymbols: UnsafeMutablePointer<UInt16>
    private var carryStart: Int

    /// How much room the carry needs: one draw's characters and the 8 bytes
    /// a group's store may write past them.
    static let carryCapacity = 64 + 8

    init(
        random: WyRand, digits: UniformDigits<UInt64>, groupSize: Int, groupBytes: UnsafePointer<UInt64>?,
        carryBytes: UnsafeMutablePointer<UInt8>, carrySymbols: UnsafeMutablePointer<UInt16>
    ) {
        self.random = random
        self.digits = digits
        self.steps = digits.digitsPerDraw
        self.groupSize = groupSize
        self.charactersPerDraw = groupSize * digits.digitsPerDraw
        precondition(charactersPerDraw <= 64, "a draw gives at most 64 characters")
        self.groupBytes = groupBytes
        self.carryBytes = carryBytes
        self.carrySymbols = carrySymbols
        self.carryStart = charactersPerDraw
    }

    /// An accepted draw (Lemire's test of `UniformDigits`).
    @inline(__always)
    private mutating func acceptedDraw() -> UInt64 {
        var draw = random.next()
        while !digits.accepts(draw) { draw = random.next() }
        return draw
    }

    /// One draw's characters as bytes at `output`, which has room for 8
    /// bytes more: each group is stored as a whole word.
    @inline(__always)
    private mutating func drawBytes(
        into output: UnsafeMutablePointer<UInt8>, table: UnsafePointer<UInt64>, steps: Int, groupSize: Int
    ) {
        var fraction = acceptedDraw()
        var place = UnsafeMutableRawPointer(output)
        let base = digits.base
        for _ in 0..<steps {
            let digit = UniformDigits.nextDigit(&fraction, base: base)
            place.storeBytes(of: table[Int(truncatingIfNeeded: digit)].littleEndian, as: UInt64.self)
            place += groupSize
        }
    }

    /// Whole draws at `output + written` while `count` leaves room for one.
    @inline(__always)
    private mutating func drawAll(
        _ steps: Int, _ groupSize: Int, into output: UnsafeMutablePointer<UInt8>, count: Int, written: inout Int,
        table: UnsafePointer<UInt64>
    ) {
        let perDraw = steps * groupSize
        while count - written >= perDraw {
            drawBytes(into: output + written, table: table, steps: steps, groupSize: groupSize)
            written += perDraw
        }
    }

    /// `count` characters of a single-byte alphabet at `output`, which has
    /// room for 8 bytes more.
    mutating func fillBytes(_ output: UnsafeMutablePointer<UInt8>, count: Int) {
        guard let table = groupBytes else { preconditionFailure("bytes need the group table") }
        let fromCarry = min(count, charactersPerDraw - carryStart)
        if fromCarry > 0 {
            output.update(from: carryBytes + carryStart, count: fromCarry)
            carryStart += fromCarry
        }
        var written = fromCarry
        // With the groups of a draw and their size known, the loop over a
        // draw is unrolled whole: a multiplication, a load and a store a
        // group. These are the shapes of 90 of the 94 single-byte alphabet
        // sizes (26 letters: 6 groups of 2; two: 8 of 8; 33 characters and
        // more: 9 to 12 groups of 1).
        switch (steps, groupSize) {
        case (6, 2): drawAll(6, 2, into: output, count: count, written: &written, table: table)
        case (7, 2): drawAll(7, 2, into: output, count: count, written: &written, table: table)
        case (8, 2): drawAll(8, 2, into: output, count: count, written: &written, table: table)
        case (6, 3): drawAll(6, 3, into: output, count: count, written: &written, table: table)
        case (7, 3): drawAll(7, 3, into: output, count: count, written: &written, table: table)
        case (9, 1): drawAll(9, 1, into: output, count: count, written: &written, table: table)
        case (10, 1): drawAll(10, 1, into: output, count: count, written: &written, table: table)
        case (11, 1): drawAll(11, 1, into: output, count: count, written: &written, table: table)
        case (12, 1): drawAll(12, 1, into: output, count: count, written: &written, table: table)
        case (8, 8): drawAll(8, 8, into: output, count: count, written: &written, table: table)
        default: drawAll(steps, groupSize, into: output, count: count, written: &written, table: table)
        }
        if written < count {
            drawBytes(into: carryBytes, table: table, steps: steps, groupSize: groupSize)
            let rest = count - written
            (output + written).update(from: carryBytes, count: rest)
            carryStart = rest
        }
    }

    /// One draw's characters as symbols at `output`.
    @inline(__always)
    private mutating func drawSymbols(into output: UnsafeMutablePointer<UInt16>) {
        var fraction = acceptedDraw()
        let base = digits.base
        for step in 0..<steps {
            output[step] = UInt16(truncatingIfNeeded: UniformDigits.nextDigit(&fraction, base: base))
        }
    }

    /// `count` symbols (indices into the alphabet) at `output`; for
    /// alphabets whose groups are single characters.
    mutating func fillSymbols(_ output: UnsafeMutablePointer<UInt16>, count: Int) {
        precondition(groupSize == 1, "symbols are typed one character a digit")
        let fromCarry = min(count, charactersPerDraw - carryStart)
        if fromCarry > 0 {
            output.update(from: carrySymbols + carryStart, count: fromCarry)
            carryStart += fromCarry
        }
        var written = fromCarry
        let perDraw = charactersPerDraw
        while count - written >= perDraw {
            drawSymbols(into: output + written)
            written += perDraw
        }
        if written < count {
            drawSymbols(into: carrySymbols)
            let rest = count - written
            (output + written).update(from: carrySymbols, count: rest)
            carryStart = rest
        }
    }
}
