import Testing

@testable import MonkeyCore

/// The journal's variable-length integers.
struct VarIntTests {
    @Test(
        arguments: [
            (UInt64(0), [0x00]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]), (16_383, [0xFF, 0x7F]),
            (16_384, [0x80, 0x80, 0x01]),
            (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        ] as [(UInt64, [UInt8])])
    func valuesHaveTheirShortestForm(value: UInt64, bytes: [UInt8]) {
        #expect(VarInt.length(of: value) == bytes.count)
        var stored = [UInt8](repeating: 0xEE, count: bytes.count + 1)
        let end = stored.withUnsafeMutableBytes { VarInt.store(value, in: $0, at: 1) }
        #expect(end == bytes.count + 1)
        #expect(Array(stored[1...]) == bytes)
        var offset = 1
        #expect(stored.withUnsafeBytes { VarInt.load(from: $0, at: &offset) } == value)
        #expect(offset == end)
    }

    @Test func everyPowerOfTwoAndItsNeighboursRoundTrip() {
        for shift in 0..<64 {
            for value in [(UInt64(1) << shift) - 1, UInt64(1) << shift, (UInt64(1) << shift) + 1] {
                var bytes = [UInt8](repeating: 0, count: 10)
                let end = bytes.withUnsafeMutableBytes { VarInt.store(value, in: $0, at: 0) }
                var offset = 0
                #expect(
                    bytes.withUnsafeBytes {
                        VarInt.load(from: UnsafeRawBufferPointer(rebasing: $0[..<end]), at: &offset)
                    } == value)
                #expect(end == VarInt.length(of: value))
            }
        }
    }

    @Test(
        arguments: [
            [], [0x80], [0xFF, 0xFF],  // the bytes end first
            [0x80, 0x00], [0xFF, 0x80, 0x00],  // not the shortest form
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],  // past 64 bits
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00],
        ] as [[UInt8]])
    func malformedIntegersAreRefused(bytes: [UInt8]) {
        var offset = 0
        #expect(bytes.withUnsafeBytes { VarInt.load(from: $0, at: &offset) } == nil)
        #expect(offset == 0)
    }
}
