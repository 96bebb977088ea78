import Foundation
import Glibc
import MonkeyShell
import Testing

/// A corpus is read and indexed off the daemon's queue (monkeyd(8),
/// Corpora and coverage): while a START naming a large one is being built,
/// other clients are served; the lines its own client sent after it wait
/// for its answer; a shutdown meanwhile answers it `ERR shutting-down`.
@Suite("Corpora built off the queue")
struct CorpusBuildTests {
    /// A corpus of `megabytes` of random letters in two works: some
    /// hundreds of milliseconds to index at chunk 9 in a release build,
    /// seconds in a debug or sanitizer build.
    static func makeLargeCorpus(in state: String, megabytes: Int = 2) throws {
        var generator = State(seed: 7)
        var files: [String: String] = [:]
        for name in ["one.txt", "two.txt"] {
            files[name] = String(
                decoding: (0..<(megabytes << 19)).map { _ in UInt8(ascii: "a") + UInt8(generator.next() % 26) },
                as: UTF8.self)
        }
        try CorpusSessionTests.makeCorpus("large", files, in: state)
    }

    /// A small generator of its own, so that the corpus is the same every run.
    struct State {
        var value: UInt64
        init(seed: UInt64) { value = seed }
        mutating func next() -> UInt64 {
            value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return value >> 33
        }
    }

    @Test func othersAreServedWhileACorpusIsBuilt() throws {
        let daemon = try DaemonProcess()
        try Self.makeLargeCorpus(in: daemon.stateDirectory)
        let builder = try daemon.connect()
        // The PING after it on the same connection is answered after it.
        try builder.send(line: "START big corpus=large monkeys=20 interval=1h\nPING")
        // Were the build done on the queue, the other client's answers
        // would come only after the START's: they are sent after it.
        let other = try daemon.connect()
        #expect(try other.request("PING") == ["OK pong"])
        #expect(try other.request("STATUS big").last?.hasPrefix("ERR no-such-session") == true)
        #expect(!builder.waitReadable(timeout: 0), "the START is answered only once the corpus is built")
        #expect(try builder.readResponse() == ["OK started big"])
        #expect(try builder.readResponse() == ["OK pong"])
        let status = try fields(try #require(try other.request("STATUS big").first))
        #expect(status["corpus"] == "large" && status["corpus_chars"] == String(2 << 20), "\(status)")
        // A refusal comes back the same way.
        #expect(try builder.request("SET big corpus=nothing").first?.hasPrefix("ERR no-such-corpus") == true)
        #expect(try other.request("STATUS big").first?.contains("corpus=large") == true, "a refusal changes nothing")
    }

    @Test func aShutdownAnswersTheBuildItInterrupts() throws {
        let daemon = try DaemonProcess()
        try Self.makeLargeCorpus(in: daemon.stateDirectory, megabytes: 8)
        let builder = try daemon.connect()
        try builder.send(line: "START big corpus=large")
        // Once another client is answered, the START has been read.
        #expect(try daemon.request("PING") == ["OK pong"])
        #expect(try daemon.stop() == 0)
        #expect(try builder.readResponse() == ["ERR shutting-down monkeyd is shutting down"])
    }
}
