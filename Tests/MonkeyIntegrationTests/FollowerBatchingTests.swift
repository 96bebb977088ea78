import Foundation
import Glibc
import MonkeyShell
import Testing

/// Followers of a fast session get its entries a few per write; none may be
/// held back once typing stops.
@Suite("Follower write batching")
struct FollowerBatchingTests {
    @Test func aFollowerGetsEveryEntryTypedBeforeStop() throws {
        let daemon = try DaemonProcess()
        let control = try daemon.connect()
        _ = try control.request("START s interval=1ms")
        let follower = try daemon.connect()
        try follower.send(line: "TAIL s last=0")
        #expect(try eventually { try typed(control) > 50 })
        _ = try control.request("STOP s")
        let last = try typed(control)
        // Entries still held back when typing stopped must arrive without
        // another tick; a read that waits 10 s for one fails the test.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(follower.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var ids: [UInt64] = []
        while ids.last ?? 0 < last, let line = try follower.readLine() {
            ids.append(UInt64(try fields(line)["id"] ?? "") ?? 0)
        }
        #expect(ids.last == last, "the follower got up to id \(ids.last ?? 0) of \(last)")
        if let first = ids.first { #expect(ids == Array(first...first + UInt64(ids.count - 1)), "no gaps") }
    }

    /// Entries typed since the session was created: the newest id, as nothing was cleared.
    private func typed(_ control: ClientConnection) throws -> UInt64 {
        UInt64(try fields(try control.request("STATUS s")[0])["typed"] ?? "") ?? 0
    }
}
