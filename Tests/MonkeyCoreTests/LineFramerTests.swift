import Testing

@testable import MonkeyCore

/// The ways a peer may split the same bytes into writes.
enum Feeding: String, CaseIterable, Sendable {
    case byteByByte, allAtOnce, lineByLine, seededChunks

    func chunks(of bytes: [UInt8]) -> [[UInt8]] {
        switch self {
        case .byteByByte:
            return bytes.map { [$0] }
        case .allAtOnce:
            return [bytes]
        case .lineByLine:
            var chunks: [[UInt8]] = []
            var current: [UInt8] = []
            for byte in bytes {
                current.append(byte)
                if byte == 0x0A {
                    chunks.append(current)
                    current = []
                }
            }
            if !current.isEmpty { chunks.append(current) }
            return chunks
        case .seededChunks:
            var random = WyRand(seed: 99)
            var chunks: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + 1 + Int(random.next(below: 7)))
                chunks.append(Array(bytes[start..<end]))
                start = end
            }
            return chunks
        }
    }
}

func frames(_ text: String, maximumLength: Int, feeding: Feeding) -> [LineFramer.Frame] {
    var framer = LineFramer(maximumLength: maximumLength)
    var frames: [LineFramer.Frame] = []
    for chunk in feeding.chunks(of: Array(text.utf8)) {
        framer.feed(chunk) { frames.append($0) }
    }
    return frames
}

func line(_ text: String) -> LineFramer.Frame { .line(Array(text.utf8)) }

struct LineFramerTests {
    @Test(arguments: Feeding.allCases)
    func sameFramesHoweverTheBytesArrive(feeding: Feeding) {
        let input = "PING\r\nSTATUS\n\nSTART a target=\"to be\"\nLOG a last=3\n"
        let expected = [
            line("PING\r"), line("STATUS"), line(""), line("START a target=\"to be\""), line("LOG a last=3"),
        ]
        #expect(frames(input, maximumLength: 64, feeding: feeding) == expected)
    }

    @Test(arguments: Feeding.allCases)
    func carriageReturnIsKeptForTheParser(feeding: Feeding) {
        #expect(frames("a\r\n\r\n", maximumLength: 16, feeding: feeding) == [line("a\r"), line("\r")])
    }

    @Test(arguments: Feeding.allCases)
    func tooLongLineIsReportedOnceAndDiscardedToItsLineFeed(feeding: Feeding) {
        let input = "0123456789abcdef ghij\nPING\n"
        #expect(frames(input, maximumLength: 8, feeding: feeding) == [.lineTooLong, line("PING")])
    }

    @Test(arguments: Feeding.allCases)
    func severalTooLongLinesEachReportedOnce(feeding: Feeding) {
        let input = "aaaaaaaaaaaa\nok\nbbbbbbbbbbbbbbbbbbbbbbbbb\n\ncccccccccc\n"
        let expected: [LineFramer.Frame] = [.lineTooLong, line("ok"), .lineTooLong, line(""), .lineTooLong]
        #expect(frames(input, maximumLength: 8, feeding: feeding) == expected)
    }

    @Test(arguments: Feeding.allCases)
    func lineOfExactlyTheMaximumIsAccepted(feeding: Feeding) {
        #expect(frames("01234567\n", maximumLength: 8, feeding: feeding) == [line("01234567")])
        #expect(frames("0123456\r\n", maximumLength: 8, feeding: feeding) == [line("0123456\r")])
        #expect(frames("012345678\nok\n", maximumLength: 8, feeding: feeding) == [.lineTooLong, line("ok")])
    }

    @Test(arguments: Feeding.allCases)
    func emptyLines(feeding: Feeding) {
        #expect(frames("\n\n\n", maximumLength: 4, feeding: feeding) == [line(""), line(""), line("")])
    }

    @Test func unterminatedLineGivesNoFrameUntilItsLineFeed() {
        var framer = LineFramer(maximumLength: 8)
        var frames: [LineFramer.Frame] = []
        framer.feed(Array("PI".utf8)) { frames.append($0) }
        framer.feed(Array("N".utf8)) { frames.append($0) }
        #expect(frames.isEmpty)
        #expect(framer.pendingByteCount == 3)
        #expect(framer.hasPartialLine)
        framer.feed(Array("G\n".utf8)) { frames.append($0) }
        #expect(frames == [line("PING")])
        #expect(framer.pendingByteCount == 0)
        #expect(!framer.hasPartialLine)
    }

    @Test func discardingCountsAsAPartialLineButHoldsNoBytes() {
        var framer = LineFramer(maximumLength: 4)
        var frames: [LineFramer.Frame] = []
        framer.feed(Array("abcdefgh".utf8)) { frames.append($0) }
        framer.feed(Array("ijkl".utf8)) { frames.append($0) }
        #expect(frames == [.lineTooLong])
        #expect(framer.hasPartialLine)
        #expect(framer.pendingByteCount == 0)
        framer.feed(Array("mn\nok\n".utf8)) { frames.append($0) }
        #expect(frames == [.lineTooLong, line("ok")])
        #expect(!framer.hasPartialLine)
    }

    @Test func arbitraryBytesPassThroughUnchanged() {
        let bytes: [UInt8] = [0x00, 0xFF, 0x0D, 0xC3, 0x28, 0x0A]
        var framer = LineFramer(maximumLength: 16)
        var frames: [LineFramer.Frame] = []
        framer.feed(bytes) { frames.append($0) }
        #expect(frames == [.line([0x00, 0xFF, 0x0D, 0xC3, 0x28])])
    }

    @Test func nextFrameConsumesOnlyUpToTheEndOfOneFrame() {
        var framer = LineFramer(maximumLength: 4)
        let bytes = Array("PING\nabcdefgh\nok\npart".utf8)
        var collected: [LineFramer.Frame] = []
        var offsets: [Int] = []
        bytes.withUnsafeBytes { raw in
            var start = 0
            while let frame = framer.nextFrame(in: raw, from: &start) {
                collected.append(frame)
                offsets.append(start)
            }
            offsets.append(start)
        }
        #expect(collected == [line("PING"), .lineTooLong, line("ok")])
        #expect(offsets.first == 5, "the bytes after the first line are left for later")
        #expect(offsets.last == bytes.count, "with no complete frame left, everything is consumed")
        #expect(framer.pendingByteCount == 4)
    }

    @Test func linesCopiedIntoOneBufferHoldOnlyTheirOwnBytes() {
        var framer = LineFramer(maximumLength: 8)
        let bytes = Array("SET q monkeys\nok\ntoo long a line\nab".utf8)
        var line: [UInt8] = [0x41]
        var cuts: [LineFramer.Cut] = []
        var lines: [String] = []
        bytes.withUnsafeBytes { raw in
            var start = 0
            while let cut = framer.nextFrame(in: raw, from: &start, into: &line) {
                cuts.append(cut)
                if cut == .line { lines.append(String(decoding: line, as: UTF8.self)) }
            }
        }
        #expect(cuts == [.lineTooLong, .line, .lineTooLong])
        #expect(lines == ["ok"])
        // The rest of a line split across reads is copied from the framer's partial line.
        Array("c\n".utf8).withUnsafeBytes { raw in
            var start = 0
            #expect(framer.nextFrame(in: raw, from: &start, into: &line) == .line)
        }
        #expect(line == Array("abc".utf8))
    }
}
