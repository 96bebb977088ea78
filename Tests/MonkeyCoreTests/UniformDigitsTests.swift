import Testing

@testable import MonkeyCore

/// The exactness of unseeded typing: every word of a narrow width is tried,
/// through the very code the kernel runs on 64-bit words.
struct UniformDigitsTests {
    /// How often each j-digit value comes out of every word of the width.
    static func tally<Word>(_ method: UniformDigits<Word>) -> [Int] {
        let values = method.span == 0 ? Int(Word.max) + 1 : Int(method.span)
        var counts = [Int](repeating: 0, count: values)
        for raw in 0...Int(Word.max) {
            let draw = Word(raw)
            guard method.accepts(draw) else { continue }
            var fraction = draw
            var value = 0
            for _ in 0..<method.digitsPerDraw {
                let digit = UniformDigits.nextDigit(&fraction, base: method.base)
                #expect(digit < method.base)
                value = value * Int(method.base) + Int(digit)
            }
            counts[value] += 1
        }
        return counts
    }

    /// Every base that fits in 8 bits, every j that fits: each value of j
    /// digits comes from exactly as many words (floor(2^8 / N)).
    @Test func everyValueEquallyOftenFromEveryByte() {
        for base in 2...255 {
            var digits = 1
            var span = base
            while span <= 256 {
                let method = UniformDigits<UInt8>(base: UInt8(base), digitsPerDraw: digits)
                let counts = Self.tally(method)
                #expect(counts.count == span)
                #expect(Set(counts) == [256 / span], "base \(base), \(digits) digits: \(Set(counts))")
                digits += 1
                span *= base
            }
        }
    }

    /// 16-bit words, bases of 26 letters and others, with the j chosen.
    @Test(arguments: [2, 3, 5, 7, 10, 26, 95, 100, 255, 256, 257, 1000, 40_000, 65_535] as [UInt16])
    func everyValueEquallyOftenFromEveryWord(base: UInt16) {
        let method = UniformDigits<UInt16>(base: base)
        let counts = Self.tally(method)
        let span = method.span == 0 ? 65_536 : Int(method.span)
        #expect(Set(counts) == [65_536 / span], "base \(base), \(method.digitsPerDraw) digits")
    }

    /// The tally sees bias: digits of r mod N, or of floor(r × N / 2^w)
    /// without Lemire's test, are not uniform.
    @Test(arguments: [3, 5, 6, 7, 10, 26, 100] as [UInt16])
    func biasedMethodsFailTheTally(base: UInt16) {
        let method = UniformDigits<UInt16>(base: base)
        var modulo = [Int](repeating: 0, count: Int(method.span))
        var unchecked = [Int](repeating: 0, count: Int(method.span))
        for raw in 0...Int(UInt16.max) {
            modulo[raw % Int(method.span)] += 1
            unchecked[Int(UInt16(raw).multipliedFullWidth(by: method.span).high)] += 1
        }
        #expect(Set(modulo).count > 1)
        #expect(Set(unchecked).count > 1)
        #expect(Set(Self.tally(method)).count == 1)
    }

    /// The digits are those of floor(r × N / 2^w), most significant first.
    @Test func digitsAreTheScaledDrawsDigits() {
        var random = WyRand(seed: 3)
        for base in [2, 3, 10, 26, 95, 1000] as [UInt64] {
            let method = UniformDigits<UInt64>(base: base)
            for _ in 0..<200 {
                let draw = random.next()
                guard method.accepts(draw) else { continue }
                var fraction = draw
                var digits: [UInt64] = []
                for _ in 0..<method.digitsPerDraw { digits.append(UniformDigits.nextDigit(&fraction, base: base)) }
                var scaled = method.span == 0 ? draw : draw.multipliedFullWidth(by: method.span).high
                for digit in digits.reversed() {
                    #expect(scaled % base == digit)
                    scaled /= base
                }
                #expect(scaled == 0)
            }
        }
    }

    /// j draws the fewest words per digit of any that fits: 13 for 26
    /// letters (5.8 % rejected), all the bits for a power of two.
    @Test func theChosenDigitsPerDrawIsTheCheapest() {
        #expect(UniformDigits<UInt64>(base: 26).digitsPerDraw == 13)
        #expect(UniformDigits<UInt64>(base: 26).span == 2_481_152_873_203_736_576)
        #expect(UniformDigits<UInt64>(base: 2).digitsPerDraw == 64)
        #expect(UniformDigits<UInt64>(base: 2).span == 0)
        #expect(UniformDigits<UInt64>(base: 256).digitsPerDraw == 8)
        #expect(UniformDigits<UInt64>(base: 10).digitsPerDraw == 18, "10^19 would reject 46 % of draws")
        for base in UInt64(2)...300 {
            let chosen = UniformDigits<UInt64>(base: base)
            var digits = 1
            var span = base.multipliedFullWidth(by: 1)
            while span.high == 0 || (span.high == 1 && span.low == 0) {
                let other = UniformDigits<UInt64>(base: base, digitsPerDraw: digits)
                #expect(chosen.drawsPerDigit <= other.drawsPerDigit, "base \(base): \(digits) digits")
                if span.high == 1 { break }
                span = span.low.multipliedFullWidth(by: base)
                digits += 1
            }
        }
    }

    /// A modulo bias at 64 bits is too small to see by sampling; what the
    /// kernel types is checked for gross faults instead: each character,
    /// each place within a draw's characters, and neighbouring pairs across
    /// draws and entries, with fixed seeds.
    @Test(arguments: [2, 3, 7, 26, 95] as [Int])
    func typedCharactersAreUniformAndIndependent(size: Int) throws {
        let alphabet = TypingAlphabet(try TypingFixture.alphabet(TypingFixture.ascii(size)))
        let perDraw = alphabet.charactersPerDraw
        let monkeys = 97
        let count = max(40, size * size * 40 / monkeys)
        var typist = Typist()
        let batch = typist.type(TypingFixture.job(alphabet, monkeys: monkeys, count: count, random: 11))
        var single = [Int](repeating: 0, count: size)
        var pairs = [Int](repeating: 0, count: size * size)
        var byPlace = [[Int]](repeating: [Int](repeating: 0, count: size), count: perDraw)
        let symbols = batch.kept.bytes.map { Int($0) - 0x20 }
        for (index, symbol) in symbols.enumerated() {
            single[symbol] += 1
            byPlace[index % perDraw][symbol] += 1
            if index % 2 == 1 { pairs[symbols[index - 1] * size + symbol] += 1 }
        }
        #expect(chiSquare(single) < chiSquareCritical(degreesOfFreedom: size - 1), "\(single)")
        #expect(chiSquare(pairs) < chiSquareCritical(degreesOfFreedom: size * size - 1))
        if symbols.count / perDraw >= size * 20 {
            for counts in byPlace {
                #expect(chiSquare(counts) < chiSquareCritical(degreesOfFreedom: size - 1), "\(counts)")
            }
        }
    }
}
