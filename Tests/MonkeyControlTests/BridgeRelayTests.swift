import MonkeyCore
import MonkeyShell
import Testing

@testable import MonkeyControl

/// One direction of `monkeyctl bridge`: a bounded buffer between a source
/// and a sink, driven here by fake reads and writes.
@Suite("Bridge relay")
struct BridgeRelayTests {
    /// A source handing out `bytes` at most `chunk` at a time, then its end.
    struct Source {
        var bytes: [UInt8]
        var offset = 0

        mutating func read(into buffer: UnsafeMutableRawBufferPointer, chunk: Int) -> Syscalls.ReadResult {
            guard offset < bytes.count else { return .endOfFile }
            let count = min(chunk, buffer.count, bytes.count - offset)
            guard count > 0 else { return .wouldBlock }
            buffer.copyBytes(from: bytes[offset..<offset + count])
            offset += count
            return .bytes(count)
        }
    }

    static func receive(_ relay: inout BridgeRelay, _ bytes: [UInt8]) {
        var source = Source(bytes: bytes)
        try? relay.receive { buffer in source.read(into: buffer, chunk: Int.max) }
    }

    /// Takes at most `limit` of what waits.
    static func send(_ relay: inout BridgeRelay, limit: Int = Int.max) -> [UInt8] {
        var taken: [UInt8] = []
        try? relay.send { bytes in
            taken = Array(bytes.prefix(limit))
            return taken.count
        }
        return taken
    }

    @Test func aFreshRelayWantsInputOnly() {
        let relay = BridgeRelay(capacity: 8)
        #expect(relay.wantsInput && !relay.wantsOutput && !relay.isDrained && relay.state == .open)
    }

    @Test func bytesReadWaitUntilTheSinkTakesThem() {
        var relay = BridgeRelay(capacity: 8)
        Self.receive(&relay, Array("hello".utf8))
        #expect(relay.pendingCount == 5 && relay.wantsOutput && relay.wantsInput)
        #expect(Self.send(&relay, limit: 2) == Array("he".utf8))
        #expect(Self.send(&relay) == Array("llo".utf8))
        #expect(relay.pendingCount == 0 && !relay.wantsOutput)
    }

    /// Full, it reads no more: the source waits until the sink takes some.
    @Test func aFullRelayReadsNoMore() {
        var relay = BridgeRelay(capacity: 4)
        Self.receive(&relay, Array("abcdef".utf8))
        #expect(relay.pendingCount == 4 && !relay.wantsInput)
        var asked = false
        try? relay.receive { _ in
            asked = true
            return .bytes(0)
        }
        #expect(!asked, "a full relay does not read")
        #expect(Self.send(&relay, limit: 3) == Array("abc".utf8))
        #expect(relay.wantsInput)
        // The one byte left moves to the front: room for three more, in order.
        Self.receive(&relay, Array("xyzw".utf8))
        #expect(relay.pendingCount == 4)
        #expect(Self.send(&relay) == Array("dxyz".utf8))
    }

    @Test func theSourcesEndDrainsThenShutsTheSink() {
        var relay = BridgeRelay(capacity: 8)
        Self.receive(&relay, Array("ab".utf8))
        try? relay.receive { _ in .endOfFile }
        #expect(relay.state == .ending && !relay.wantsInput && relay.wantsOutput && !relay.isDrained)
        #expect(Self.send(&relay) == Array("ab".utf8))
        #expect(relay.isDrained)
    }

    @Test func wouldBlockChangesNothing() {
        var relay = BridgeRelay(capacity: 8)
        Self.receive(&relay, Array("ab".utf8))
        try? relay.receive { _ in .wouldBlock }
        try? relay.send { _ in 0 }
        #expect(relay.state == .open && relay.pendingCount == 2)
    }

    @Test func closingDropsWhatWaits() {
        var relay = BridgeRelay(capacity: 8)
        Self.receive(&relay, Array("ab".utf8))
        relay.close()
        #expect(relay.state == .closed && !relay.wantsInput && !relay.wantsOutput && !relay.isDrained)
    }

    @Test func aFailedReadIsThrownAndChangesNothing() {
        var relay = BridgeRelay(capacity: 8)
        #expect(throws: SystemError("read", errno: 5)) {
            try relay.receive { _ throws(SystemError) in throw SystemError("read", errno: 5) }
        }
        #expect(relay.state == .open && relay.pendingCount == 0)
        relay.endInput()
        #expect(relay.isDrained)
    }

    /// Reads and writes of random sizes through a small relay: what comes
    /// out is what went in, in order, never more than the capacity waiting.
    @Test(arguments: [1, 7, 64] as [UInt64])
    func everythingPassesInOrder(seed: UInt64) {
        var random = WyRand(seed: seed)
        let bytes = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &random) }
        var source = Source(bytes: bytes)
        var relay = BridgeRelay(capacity: 16)
        var out: [UInt8] = []
        while !relay.isDrained {
            let chunk = Int.random(in: 0...20, using: &random)
            try? relay.receive { buffer in source.read(into: buffer, chunk: chunk) }
            #expect(relay.pendingCount <= 16)
            out += Self.send(&relay, limit: Int.random(in: 0...20, using: &random))
        }
        #expect(out == bytes)
    }
}
