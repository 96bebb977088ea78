import Foundation
import Glibc
import Testing

/// TAIL: replay, live following, ending, and slow followers.
@Suite("TAIL and followers")
struct TailTests {
    @Test func tailReplaysThenFollowsUntilAnyLine() throws {
        let daemon = try DaemonProcess()
        let control = try daemon.connect()
        _ = try control.request("START s interval=2ms")
        #expect(try eventually { try control.request("LOG s").count > 5 })
        let follower = try daemon.connect()
        try follower.send(line: "TAIL s last=3")
        var ids: [UInt64] = []
        while ids.count < 20, let line = try follower.readLine() {
            let entry = try fields(line)
            #expect(entry["type"] == "entry")
            ids.append(UInt64(entry["id"] ?? "") ?? 0)
        }
        #expect(ids == Array(ids[0]...ids[0] + 19), "no gaps, no repeats while following")
        try follower.send(line: "")
        var tail: [String] = []
        while let line = try follower.readLine() {
            tail.append(line)
            if line == "OK" { break }
        }
        #expect(tail.last == "OK")
        #expect(try follower.request("PING") == ["OK pong"], "the line that ended TAIL was not a request")
    }

    @Test func deletingTheSessionEndsItsFollowers() throws {
        let daemon = try DaemonProcess()
        let follower = try daemon.connect()
        _ = try follower.request("START s interval=1h")
        try follower.send(line: "TAIL s")
        _ = try daemon.request("DELETE s")
        #expect(try follower.readLine()?.hasPrefix("ERR no-such-session") == true)
        #expect(try follower.request("PING") == ["OK pong"])
    }

    @Test func stalledFollowerLosesEntriesNotTheDaemon() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 64K\n")
        let control = try daemon.connect()
        _ = try control.request("START fast monkeys=200 interval=1ms")
        let stalled = try daemon.connect()
        try stalled.send(line: "TAIL fast")
        let before = daemon.residentKilobytes()
        // While the follower reads nothing for a good while, others are
        // served (how fast is the benchmark's to say, not a test's).
        for _ in 0..<200 {
            #expect(try control.request("PING") == ["OK pong"])
            usleep(5000)  // pacing the load, not synchronisation
        }
        let status = try fields(try control.request("STATUS fast")[0])
        #expect(Int(status["typed"] ?? "0") ?? 0 > 500, "typing went on")
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 16 * 1024, "memory stays bounded (grew \(growth) KiB)")
        // Reading again, the follower learns how much it missed.
        var lost: UInt64 = 0
        var sawEntryAfterLost = false
        while let line = try stalled.readLine() {
            let record = try fields(line)
            if record["type"] == "lost" { lost += UInt64(record["count"] ?? "0") ?? 0 }
            if record["type"] == "entry" && lost > 0 {
                sawEntryAfterLost = true
                break
            }
        }
        #expect(lost > 0)
        #expect(sawEntryAfterLost)
    }

    @Test func largeLogIsStreamedCompletely() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 4K\n")
        let control = try daemon.connect()
        _ = try control.request("START big monkeys=500 interval=1ms")
        #expect(try eventually { try Int(fields(control.request("STATUS big")[0])["entries"] ?? "0") ?? 0 >= 300 })
        _ = try control.request("STOP big")
        try control.send(Array("LOG big\nPING\n".utf8))
        let log = try control.readResponse()
        #expect(log.count >= 301)
        let ids = try log.dropLast().map { UInt64(try fields($0)["id"] ?? "") ?? 0 }
        #expect(ids == Array(1...UInt64(ids.count)))
        #expect(try control.readResponse() == ["OK pong"], "pipelined request answered after the stream")
    }
}

@Suite("TAIL after an id not yet typed")
struct TailAfterFutureIDTests {
    @Test func entriesUpToAfterAreNotStreamed() throws {
        let daemon = try DaemonProcess()
        let control = try daemon.connect()
        _ = try control.request("START s interval=1ms")
        let follower = try daemon.connect()
        try follower.send(line: "TAIL s after=200")
        let first = try fields(try follower.readLine() ?? "")
        #expect(UInt64(first["id"] ?? "") ?? 0 > 200)
    }
}

@Suite("A long reply and the request behind it")
struct LongReplyThenPipelinedRequestTests {
    /// A LOG of 16 chunks of the output limit, each flushed whole, ends in
    /// the last round `service` takes for a connection in one turn; the
    /// PING behind it must still be answered (it once waited for ever).
    @Test func requestAfterALogOfSixteenChunksIsAnswered() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 4K\n")
        let control = try daemon.connect()
        _ = try control.request("START s monkeys=1000 interval=1ms")
        #expect(try eventually { try Int(fields(control.request("STATUS s")[0])["entries"] ?? "0") ?? 0 >= 64 })
        _ = try control.request("STOP s")
        let client = try daemon.connect()
        try client.send(Array("LOG s last=64\nPING\n".utf8))
        let log = try client.readResponse()
        #expect(log.count == 65)
        try #require(client.hasBufferedLine || client.waitReadable(timeout: 10), "the PING behind the LOG is answered")
        #expect(try client.readResponse() == ["OK pong"])
    }

    /// STATUS of many sessions is longer than the output limit: it goes out
    /// in parts as the client reads, whole and in order, and the request
    /// behind it is answered after it.
    @Test func requestAfterAStatusOfManySessionsIsAnswered() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 4K\n")
        let control = try daemon.connect()
        let names = (0..<200).map { "s" + String(1000 + $0).dropFirst() }
        try control.send(Array(names.shuffled().map { "START \($0) interval=1h\n" }.joined().utf8))
        for _ in names { #expect(try control.readResponse().last?.hasPrefix("OK") == true) }
        let client = try daemon.connect()
        try client.send(Array("STATUS\nPING\n".utf8))
        let status = try client.readResponse()
        #expect(status.last == "OK")
        #expect(try status.dropLast().map { try fields($0)["name"] ?? "" } == names)
        try #require(
            client.hasBufferedLine || client.waitReadable(timeout: 10), "the PING behind the STATUS is answered")
        #expect(try client.readResponse() == ["OK pong"])
    }
}
