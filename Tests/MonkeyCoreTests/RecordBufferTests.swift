import Testing

@testable import MonkeyCore

/// The buffer the journal's records are written into in place.
struct RecordBufferTests {
    /// Records of every length up to past the first growth come back as
    /// appended, and an emptied buffer reused holds only what follows.
    @Test func recordsComeBackAcrossGrowthAndReuse() {
        var buffer = RecordBuffer()
        var expected: [UInt8] = []
        var random = WyRand(seed: 7)
        for round in 0..<2 {
            for length in 0..<200 {
                let record = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if length % 2 == 0 {
                    buffer.append(contentsOf: record)
                } else {
                    buffer.append(length: length) { room in
                        #expect(room.count == length)
                        room.copyBytes(from: record)
                    }
                }
                expected += record
            }
            #expect(buffer.count == expected.count)
            #expect(Array(buffer.bytes) == expected, "round \(round)")
            buffer.removeAll()
            expected.removeAll()
            #expect(buffer.isEmpty && buffer.bytes.isEmpty)
        }
    }
}
