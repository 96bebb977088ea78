import Testing

@testable import MonkeyCore

struct TokenizerTests {
    @Test(
        arguments: [
            ("", []),
            (" \t ", []),
            ("PING", [.word("PING")]),
            ("START  a\tb", [.word("START"), .word("a"), .word("b")]),
            ("\tSTART a \t", [.word("START"), .word("a")]),
            ("monkeys=3", [.setting(key: "monkeys", value: "3")]),
            ("target=", [.setting(key: "target", value: "")]),
            ("target=a=b==c", [.setting(key: "target", value: "a=b==c")]),
            ("target=\"to be or not\"", [.setting(key: "target", value: "to be or not")]),
            ("target=\"\"", [.setting(key: "target", value: "")]),
            ("target=\"a=b\"", [.setting(key: "target", value: "a=b")]),
            ("\"a b\"", [.word("a b")]),
            ("\"\"", [.word("")]),
            ("\"x=y\"", [.word("x=y")]),
            ("\"a\" \"b\"", [.word("a"), .word("b")]),
            ("\"a\"\tb", [.word("a"), .word("b")]),
            ("é=ü", [.setting(key: "é", value: "ü")]),
            ("a\u{00A0}b", [.word("a\u{00A0}b")]),
        ] as [(String, [Token])])
    func splitsTokens(line: String, expected: [Token]) throws {
        #expect(try Tokenizer.tokens(in: line) == expected)
    }

    @Test(arguments: [
        (#""a\\b""#, "a\\b"),
        (#""a\"b""#, "a\"b"),
        (#""a\nb""#, "a\nb"),
        (#""a\tb""#, "a\tb"),
        (#""\\\"\n\t""#, "\\\"\n\t"),
        ("\"tab\there\"", "tab\there"),
        ("\"  spaced  \"", "  spaced  "),
        ("\"é🐒\"", "é🐒"),
    ])
    func quotedEscapes(line: String, expected: String) throws {
        #expect(try Tokenizer.tokens(in: line) == [.word(expected)])
        #expect(try Tokenizer.tokens(in: "k=" + line) == [.setting(key: "k", value: expected)])
    }

    @Test(arguments: [
        #""a\qb""#,  // unknown escape
        #""a\x41""#,  // \x is only for responses
        #""a\ b""#,
        "\"open",  // unterminated
        "\"ends with backslash\\",
        "target=\"open",
        "target=\"a\\",
        "ab\"c\"",  // quote in the middle of a bare token
        "ab\"",
        "target=a\"b\"",
        "target=\"a\"b",  // closing quote must end the token
        "\"a\"b",
        "\"a\"\"b\"",
        "=value",  // a setting needs a key
        "=\"value\"",
    ])
    func refusesBadQuoting(line: String) {
        #expect(throws: ProtocolError.self) { try Tokenizer.tokens(in: line) }
        do {
            _ = try Tokenizer.tokens(in: line)
        } catch {
            #expect(error.code == .badRequest)
            #expect(!error.message.isEmpty)
        }
    }
}

/// The parser's shortcut for plain lines gives the tokenizer's tokens, and
/// declines every line it cannot read as plain words.
struct PlainWordsTests {
    @Test(arguments: [
        ("SET q monkeys=7", [Token.word("SET"), .word("q"), .setting(key: "monkeys", value: "7")]),
        (
            "START q target=a=b alphabet=",
            [.word("START"), .word("q"), .setting(key: "target", value: "a=b"), .setting(key: "alphabet", value: "")]
        ),
        ("\tLOG  q\tlast=3 ", [.word("LOG"), .word("q"), .setting(key: "last", value: "3")]),
    ])
    func settingsAreReadToo(line: String, tokens: [Token]) {
        #expect(RequestParser.plainWords(Array(line.utf8)[...]) == tokens)
    }

    @Test(arguments: ["SET q =7", "=x", "SET q target=\"a b\"", "SET q target=é"])
    func declinesWhatOnlyTheTokenizerReads(line: String) {
        #expect(RequestParser.plainWords(Array(line.utf8)[...]) == nil)
    }

    @Test func plainWordsAgreeWithTheTokenizer() throws {
        var random = WyRand(seed: 99)
        let bytes: [UInt8] = Array("aZ09-_. \t=\"\\é".utf8)
        for _ in 0..<20_000 {
            let length = Int(random.next(below: 12))
            let line = (0..<length).map { _ in bytes[Int(random.next(below: UInt64(bytes.count)))] }
            guard let text = String(validating: line, as: UTF8.self) else { continue }
            if let words = RequestParser.plainWords(line[...]) {
                #expect(try Tokenizer.tokens(in: text) == words, "\(text)")
            } else {
                let startsWithEquals = line.indices.contains { line[$0] == 0x3D && ($0 == 0 || line[$0 - 1] <= 0x20) }
                #expect(startsWithEquals || line.contains { $0 == 0x22 || $0 >= 0x7F || ($0 < 0x20 && $0 != 0x09) })
            }
        }
    }
}
