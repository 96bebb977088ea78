import Testing

@testable import MonkeyCore

/// The processor's CRC-32C instruction and the table-driven fallback are
/// one checksum: files written on one machine verify on another.
@Suite("CRC-32C")
struct CRC32CTests {
    @Test func theStandardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
        "123456789".utf8.withContiguousStorageIfAvailable {
            #expect(CRC32C.tableDrivenChecksum(UnsafeRawBufferPointer($0), continuing: 0) == 0xE306_9283)
        }
    }

    @Test func bothWaysAgreeAtEveryLengthOffsetAndStartingValue() {
        #if arch(x86_64)
            #expect(CRC32C.isAccelerated, "every x86-64 machine of this kind has SSE 4.2")
        #endif
        var random = WyRand(seed: 0xC4C3_2C00)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes.withUnsafeBytes { all in
            for offset in 0..<9 {
                for length in 0...(all.count - offset) {
                    let slice = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)])
                    let start = UInt32.random(in: 0...UInt32.max, using: &random)
                    #expect(
                        CRC32C.checksum(slice, continuing: start)
                            == CRC32C.tableDrivenChecksum(slice, continuing: start),
                        "offset \(offset), length \(length)")
                }
            }
        }
    }

    @Test func aChecksumContinuesAcrossSplits() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let continued = CRC32C.checksum(Array(bytes[split...]), continuing: CRC32C.checksum(Array(bytes[..<split])))
            #expect(continued == CRC32C.checksum(bytes), "split at \(split)")
        }
    }
}
