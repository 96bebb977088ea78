import Testing

@testable import MonkeyCore

/// `RequestParser.plainChange`, the short way for the change lines a busy
/// client sends most: it must read them, and for every line it reads give
/// what the full way gives.
struct RequestParserPlainChangeTests {
    let parser = RequestParser(limits: Limits())

    private func plainChange(_ line: String) -> Request? {
        Array(line.utf8).withUnsafeBufferPointer { RequestParser.plainChange(in: $0, limits: parser.limits) }
    }

    @Test(arguments: [
        "SET q monkeys=7", "set q interval=250ms", "SET q  monkeys=10000\tinterval=1h", "clear q", "CLEAR exp-1.a_b",
        "STOP q", "delete q", "START q", "start q interval=1h", "START q monkeys=1 interval=24h", "SET q interval=0ms",
    ])
    func commonChangesTakeTheShortWay(line: String) throws {
        let short = try #require(plainChange(line), "\(line.debugDescription)")
        #expect(short == (try parser.parse(line)))
    }

    @Test(arguments: [
        "SET q", "SET q target=x", "SET q seed=1", "SET q monkeys=0", "SET q monkeys=10001", "SET q monkeys=+5",
        "SET q monkeys=", "SET q monkeys=5 monkeys=6", "SET q monkeys=5 x", "SET q Monkeys=5",
        "SET q interval=25h", "SET q interval=soon", "SET q \"monkeys=5\"", "SET q monkeys=5é", "CLEAR q extra",
        "CLEAR q monkeys=5", "CLEAR", "CLEAR .q", "CLEAR q=1", "STATUS q", "LOG q", "PING", "", "  ",
        "SET q monkeys=99999999999999999999999", "CLEAR q \u{01}", "SET q monkeys=5 \u{7F}", "STOP q é",
        "DELETE q\t\u{0}",
    ])
    func everythingElseIsLeftToTheFullWay(line: String) {
        #expect(plainChange(line) == nil, "\(line.debugDescription)")
    }

    /// Lines made of the words these requests use, valid and not: the
    /// short way reads some, and agrees with the full way on each; the
    /// whole parser answers as it does from text.
    @Test func agreesWithTheFullWayOnEveryLineItReads() throws {
        let verbs = ["SET", "set", "CLEAR", "Clear", "STOP", "DELETE", "START", "STATUS", "LOG", "SETX", "=", ""]
        let names = ["q", "Q-1", "a.b_c", ".q", "-q", "q=1", "é", String(repeating: "n", count: 65), ""]
        let keys = ["monkeys", "interval", "target", "seed", "Monkeys", "monkey", ""]
        let values = ["0", "1", "7", "10000", "10001", "+5", "007", "", "1h", "250ms", "0ms", "25h", "x", "\"3\""]
        let gaps = [" ", "\t", "  "]
        var random = WyRand(seed: 17)
        func pick(_ words: [String]) -> String { words[Int(random.next(below: UInt64(words.count)))] }
        var readShort = 0
        for _ in 0..<20_000 {
            var words = [pick(verbs), pick(names)]
            for _ in 0..<random.next(below: 4) {
                words.append(random.next(below: 8) == 0 ? pick(names) : pick(keys) + "=" + pick(values))
            }
            if random.next(below: 10) == 0 { words.removeLast() }
            var line = ""
            for word in words { line += (line.isEmpty ? "" : pick(gaps)) + word }
            let full = Result { try parser.parse(line) }
            if let short = plainChange(line) {
                readShort += 1
                #expect(short == (try full.get()), "\(line.debugDescription)")
            }
            switch (Result { try parser.parse(Array(line.utf8)) }, full) {
            case (.success(let request), .success(let wanted)): #expect(request == wanted, "\(line.debugDescription)")
            case (.failure(let error), .failure(let wanted)):
                #expect((error as? ProtocolError) == (wanted as? ProtocolError), "\(line.debugDescription)")
            default: Issue.record("the byte and text ways disagree on \(line.debugDescription)")
            }
        }
        #expect(readShort > 500)
    }
}
