import Testing

@testable import MonkeyCore

/// The table the journal's fold finds each entry's session in, by the
/// name's bytes.
struct NameBytesIndexTests {
    /// Names are numbered in the order added and found again across every
    /// growth of the table; names never added, among them prefixes and
    /// extensions of added ones and names differing in one byte, are not.
    @Test func findsEveryNameAddedAndNoOther() {
        var index = NameBytesIndex()
        var random = WyRand(seed: 11)
        var added: [[UInt8]] = []
        var seen = Set<[UInt8]>()
        while added.count < 5_000 {
            let length = Int(random.next() % 20)
            let name = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next() % 4) + 0x61 }
            guard seen.insert(name).inserted else { continue }
            let number = name.withUnsafeBytes { index.add($0) }
            #expect(number == added.count)
            added.append(name)
            #expect(index.count == added.count)
        }
        for (number, name) in added.enumerated() {
            #expect(name.withUnsafeBytes { index.number(of: $0) } == number)
        }
        for name in added.prefix(500) {
            for other in [name + [0x61], Array(name.dropLast()), name.isEmpty ? [0x7A] : [0x7A] + name.dropFirst()]
            where !seen.contains(other) {
                #expect(other.withUnsafeBytes { index.number(of: $0) } == nil, "\(other)")
            }
        }
    }

    /// Session names as the journal holds them: s0…s9999, all found.
    @Test func numbersSessionNames() {
        var index = NameBytesIndex()
        for number in 0..<10_000 {
            #expect(Array("s\(number)".utf8).withUnsafeBytes { index.add($0) } == number)
        }
        for number in stride(from: 9_999, through: 0, by: -7) {
            #expect(Array("s\(number)".utf8).withUnsafeBytes { index.number(of: $0) } == number)
        }
        #expect(Array("s10000".utf8).withUnsafeBytes { index.number(of: $0) } == nil)
    }

    /// A guessed number is checked against the name: true for the name's
    /// own number only, false for numbers out of range and for a name that
    /// starts as the numbered one does.
    @Test func checksAGuessedNumber() {
        var index = NameBytesIndex()
        for number in 0..<100 { _ = Array("s\(number)".utf8).withUnsafeBytes { index.add($0) } }
        for number in 0..<100 {
            Array("s\(number)".utf8).withUnsafeBytes { name in
                #expect(index.isNumber(number, of: name))
                #expect(!index.isNumber((number + 1) % 100, of: name))
            }
        }
        Array("s1".utf8).withUnsafeBytes { name in
            #expect(!index.isNumber(-1, of: name) && !index.isNumber(100, of: name))
        }
        #expect(!Array("s10".utf8).withUnsafeBytes { index.isNumber(1, of: $0) })
        #expect(!Array("s".utf8).withUnsafeBytes { index.isNumber(1, of: $0) })
    }
}
