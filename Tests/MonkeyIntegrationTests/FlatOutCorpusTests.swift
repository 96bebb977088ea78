import Foundation
import MonkeyCore
import Testing

/// A corpus session typing flat out: its batches are scanned on the typing
/// threads and covered by the owner in id order, so that its coverage is
/// what §13's rule gives for every entry it typed, retained or not, and
/// with a seed a pure function of its settings.
@Suite("Flat-out corpus sessions")
struct FlatOutCorpusTests {
    /// One work of 200 letters from a fixed generator: with chunk 4 over
    /// 26 letters a batch covers some of it, not all.
    static let work: String = {
        var state: UInt32 = 12345
        return String(
            (0..<200).map { _ -> Character in
                state = state &* 1_103_515_245 &+ 12345
                return Character(Unicode.Scalar(UInt8(97 + (state >> 16) % 26)))
            })
    }()

    @Test func coverageIsTheRuleOverEveryTypedEntry() throws {
        let state = TemporaryDirectory()
        try CorpusSessionTests.makeCorpus("rand", ["w.txt": Self.work], in: state.path)
        let daemon = try DaemonProcess(stateDirectory: state.path)
        _ = try daemon.request("START c corpus=rand chunk=4 monkeys=8 interval=0 seed=7")
        #expect(try eventually(timeout: 60) { try Int(fields(daemon.request("STATUS c")[0])["typed"] ?? "") ?? 0 > 0 })
        _ = try daemon.request("STOP c")
        let status = try fields(daemon.request("STATUS c")[0])
        let typed = try #require(UInt64(status["typed"] ?? ""))
        #expect(status["windows"] == String(typed * 5), "five windows of 4 in each entry of 8")

        // §13's rule, slowly, over every id the session typed.
        let alphabet = try #require(try? Alphabet(validating: "abcdefghijklmnopqrstuvwxyz", limit: 256))
        let text = Array(Self.work)
        var chunks: [String: [Int]] = [:]
        for place in 0...(text.count - 4) { chunks[String(text[place..<(place + 4)]), default: []].append(place) }
        var covered = [Bool](repeating: false, count: text.count)
        var hits = 0
        for id in 1...typed {
            let entry = Array(SeededTyping.text(seed: 7, id: id, monkeys: 8, alphabet: alphabet))
            var isHit = false
            for start in 0...(entry.count - 4) {
                for place in chunks[String(entry[start..<(start + 4)])] ?? [] {
                    for position in place..<(place + 4) where !covered[position] {
                        covered[position] = true
                        isHit = true
                    }
                }
            }
            if isHit { hits += 1 }
        }
        let shown = try CorpusSessionTests.segments(daemon, "c", work: "w")
        #expect(shown.text == Self.work)
        #expect(shown.covered == covered, "covered character by character as the rule says")
        #expect(status["covered"] == String(covered.filter { $0 }.count))
        #expect(status["hits"] == String(hits), "a hit is an entry that covered something new")
        #expect(covered.contains(false) && covered.contains(true), "the test covers some, not all: \(typed) typed")
    }
}
