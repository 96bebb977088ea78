import Testing

@testable import MonkeyCore

struct RequestParserTests {
    let parser = RequestParser(limits: Limits())

    /// The shortest valid line for each verb, after the verb.
    static func arguments(for verb: Verb) -> String {
        switch verb {
        case .ping, .hello, .help, .quit, .status, .metrics, .events, .corpora: ""
        case .wait: " a for=hit"
        case .coverage: " a"
        case .start, .stop, .clear, .delete, .log, .tail: " a"
        case .set: " a monkeys=2"
        }
    }

    @Test(arguments: Verb.allCases)
    func everyVerbIsCaseInsensitive(verb: Verb) throws {
        let word = verb.rawValue
        let mixed = String(
            word.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element })
        for spelling in [word, word.lowercased(), mixed] {
            let request = try parser.parse(spelling + Self.arguments(for: verb))
            #expect(request?.verb == verb, "\(spelling)")
        }
    }

    @Test func requestsCarryTheirArguments() throws {
        let a = try sessionName("a")
        #expect(try parser.parse("PING") == .ping)
        #expect(try parser.parse("hello") == .hello)
        #expect(try parser.parse("HELP") == .help)
        #expect(try parser.parse("quit") == .quit)
        #expect(try parser.parse("metrics") == .metrics)
        #expect(try parser.parse("STOP a") == .stop(a))
        #expect(try parser.parse("CLEAR a") == .clear(a))
        #expect(try parser.parse("DELETE a") == .delete(a))
        #expect(try parser.parse("STATUS") == .status(nil))
        #expect(try parser.parse("STATUS a") == .status(a))
        #expect(try parser.parse("START a") == .start(a, SettingsChange()))
        #expect(try parser.parse("LOG a") == .log([.name(a)], LogQuery()))
        #expect(try parser.parse("TAIL a last=5 after=3") == .tail([.name(a)], LogQuery(last: 5, after: 3)))
        #expect(try parser.parse("START \"a\"") == .start(a, SettingsChange()))
        let change = SettingsChange(
            monkeys: 3, interval: Interval(nanoseconds: 250_000_000), alphabet: try alphabet("ab c"),
            target: "to be\\or \"not\"")
        let line = #"start a target="to be\\or \"not\"" monkeys=3 interval=250ms alphabet="ab c""#
        #expect(try parser.parse(line) == .start(a, change))
        #expect(try parser.parse("SET\ta\tmonkeys=7\t") == .set(a, SettingsChange(monkeys: 7)))
    }

    @Test(arguments: ["", " ", "\t", "  \t  "])
    func emptyLineIsNoRequest(line: String) throws {
        #expect(try parser.parse(line) == nil)
        #expect(try parser.parse(Array((line + "\r").utf8)) == nil)
    }

    @Test func trailingCarriageReturnIsDropped() throws {
        let a = try sessionName("a")
        #expect(try parser.parse(Array("PING\r".utf8)) == .ping)
        #expect(try parser.parse(Array("STOP a\r".utf8)) == .stop(a))
        #expect(try parser.parse(Array("SET a target=x\r".utf8)) == .set(a, SettingsChange(target: "x")))
        #expect(try parser.parse(Array("SET a target=\"x y\"\r".utf8)) == .set(a, SettingsChange(target: "x y")))
    }

    /// Argument-less verbs are read straight from the bytes; every other
    /// line goes the full way, and both ways agree.
    @Test(arguments: [
        "PING", "ping", "pInG\r", "STATUS", "status\r", "HELLO", "help", "QUIT", "PINGS", "PIN", "PONG", "STATUS a",
        "PING\r\r", " PING", "PING ", "START", "ſtatus", "pıng",
    ])
    func bareVerbsTakeTheShortPathWithTheSameAnswer(line: String) throws {
        let bytes = Array(line.utf8)
        let full = line.hasSuffix("\r") ? String(line.dropLast()) : line
        let expected = Result { try parser.parse(full) }
        let bare = RequestParser.bareVerb(bytes)
        let isBare = ["PING", "ping", "pInG\r", "STATUS", "status\r", "HELLO", "help", "QUIT"].contains(line)
        #expect((bare != nil) == isBare, "\(line.debugDescription)")
        if let bare { #expect(bare == (try expected.get())) }
        switch (Result { try parser.parse(bytes) }, expected) {
        case (.success(let request), .success(let wanted)): #expect(request == wanted)
        case (.failure(let error), .failure(let wanted)):
            #expect((error as? ProtocolError)?.code == (wanted as? ProtocolError)?.code)
        default: Issue.record("the byte and text paths disagree on \(line.debugDescription)")
        }
    }

    @Test(
        arguments: [
            [0xFF],
            [0x50, 0x49, 0x4E, 0x47, 0xC3],  // PING and a truncated sequence
            [0xC0, 0x80],  // overlong NUL
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0x53, 0x54, 0x4F, 0x50, 0x20, 0xE9],  // STOP and Latin-1 é
            [0x00],
            [0x50, 0x49, 0x4E, 0x47, 0x00],
            [0x50, 0x49, 0x00, 0x4E, 0x47, 0x0D],
            Array("SET a target=\"a".utf8) + [0x00] + Array("b\"".utf8),
        ] as [[UInt8]])
    func invalidEncodingOrNulIsBadRequest(bytes: [UInt8]) {
        #expect(parseError(bytes: bytes)?.code == .badRequest)
    }

    @Test(arguments: ["PONG", "STARTX a", "STAR a", "monkeys=3 a", "\"\"", "\"PING PONG\"", "ÄRGER", "?", "PING\r"])
    func unknownVerbIsUnknownCommand(line: String) {
        #expect(parseError(line)?.code == .unknownCommand)
    }

    /// Verbs are ASCII words; Unicode case mapping must not turn other
    /// letters into them (dotless ı uppercases to I, long ſ to S).
    @Test(arguments: ["pıng", "ſtop a", "ſtatus", "HELP\u{0307}"])
    func onlyAsciiSpellingsAreVerbs(line: String) {
        #expect(parseError(line)?.code == .unknownCommand)
    }

    /// The packed lookup of a verb's bytes: exact words only, in any ASCII case.
    @Test func aVerbIsLookedUpByItsBytes() {
        for verb in Verb.allCases {
            #expect(Verb(spelling: verb.rawValue.utf8) == verb)
            #expect(Verb(spelling: verb.rawValue.lowercased().utf8) == verb)
        }
        for word in ["", "\0PING", "PING\0", "\0\0\0\0SET", "METRICSX", "XMETRICS", "STATUSSTATUS", "P1NG", "PIN"] {
            #expect(Verb(spelling: word.utf8) == nil, "\(word.debugDescription)")
        }
    }

    @Test(arguments: ["START", "STOP", "SET", "CLEAR", "DELETE", "LOG", "TAIL", "START monkeys=3", "LOG last=2"])
    func missingSessionIsBadRequest(line: String) {
        #expect(parseError(line)?.code == .badRequest)
    }

    static let badNames = [
        "\"\"", String(repeating: "a", count: 65), ".hidden", "-x", "..", "../x", "a/b", "/etc", "café", "\"a b\"",
        "a\\b", "a:b", "\"a\\tb\"", "🐒",
    ]

    @Test(arguments: badNames, ["START", "STOP", "STATUS", "LOG", "TAIL", "DELETE"])
    func badSessionNameIsBadArgument(name: String, verb: String) {
        #expect(parseError("\(verb) \(name)")?.code == .badArgument)
    }

    @Test(arguments: [String(repeating: "a", count: 64), "a.b-c_D9", "_x", "9", "a..", "A-"])
    func goodSessionNames(name: String) throws {
        #expect(try parser.parse("STOP \(name)") == .stop(try sessionName(name)))
    }

    @Test(arguments: [
        "PING x", "HELLO x", "QUIT now", "STOP a b", "STATUS a b", "START a b", "START a monkeys=2 b", "WAIT a b",
        "CLEAR a \"b\"",
    ])
    func extraPositionalArgumentIsBadRequest(line: String) {
        #expect(parseError(line)?.code == .badRequest)
    }

    @Test(arguments: ["PING a=b", "STOP a monkeys=3", "CLEAR a last=3", "DELETE a target=x", "STATUS a last=1"])
    func settingOnAVerbThatTakesNoneIsBadArgument(line: String) {
        #expect(parseError(line)?.code == .badArgument)
    }

    @Test func errorMessagesAreShortSingleLines() {
        let hostile = String(repeating: "x", count: 5000)
        let lines = [
            hostile, "\"a\\nb\\nc\"", "STOP \"\\n\(hostile)\"", "START a \(hostile)=1", "START a monkeys=\"1\\n2\"",
        ]
        for line in lines {
            let error = parseError(line)
            #expect(error != nil, "\(line.prefix(20))")
            let message = error?.message ?? ""
            #expect(!message.contains("\n") && !message.contains("\r"))
            #expect(message.utf8.count < 300)
        }
    }
}
