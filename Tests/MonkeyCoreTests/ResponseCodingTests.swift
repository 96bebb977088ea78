import Testing

@testable import MonkeyCore

func encoded(_ record: Record) -> String {
    var output: [UInt8] = []
    ResponseEncoder.append(record, to: &output)
    return String(decoding: output, as: UTF8.self)
}

func encoded(_ status: Status) -> String {
    var output: [UInt8] = []
    ResponseEncoder.append(status, to: &output)
    return String(decoding: output, as: UTF8.self)
}

struct ResponseCodingTests {
    static let awkwardValues = [
        "plain", "", " ", "two words", "\"", "say \"hi\"", "=", "a=b", "\\", "C:\\path", "line\nbreak", "\n",
        "tab\there", "cr\r", "bell\u{07}", "nul\u{00}", "del\u{7F}", "esc\u{1B}[0m", "\u{1F}", "é", "🐒 typed",
        "日本語", "c1\u{85}", "OK", "ERR x", "\\x41", "trailing ", " leading", "quote\"=\\mix\n\t",
    ]

    @Test(arguments: awkwardValues)
    func valueRoundTrips(value: String) throws {
        let record = Record(type: "entry", fields: [("text", value), ("after", "x")])
        let line = encoded(record)
        #expect(line.hasSuffix("\n"))
        #expect(line.utf8.filter { $0 == 0x0A }.count == 1, "one line, however awkward the value")
        #expect(!line.dropLast().utf8.contains { $0 < 0x20 || $0 == 0x7F }, "control characters are escaped")
        #expect(try ResponseDecoder.decode(String(line.dropLast())) == .record(record))
        #expect(ResponseEncoder.encode(record) == String(line.dropLast()))
    }

    @Test(arguments: [
        ("plain", "plain"), ("", "\"\""), ("two words", "\"two words\""), ("a=b", "\"a=b\""),
        ("say \"hi\"", #""say \"hi\"""#), ("C:\\p", #""C:\\p""#), ("a\nb", #""a\nb""#), ("a\tb", #""a\tb""#),
        ("a\rb", #""a\x0db""#), ("\u{7F}", #""\x7f""#), ("é", "é"), ("🐒", "🐒"),
    ])
    func valueSpelling(value: String, spelled: String) {
        var output: [UInt8] = []
        ResponseEncoder.appendValue(value, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == spelled)
    }

    @Test func recordOfManyFieldsRoundTrips() throws {
        let record = Record(
            type: "session",
            fields: [("name", "a"), ("target", "to be or not"), ("alphabet", "ab =\"\\"), ("best", ""), ("hits", "0")])
        #expect(encoded(record) == #"session name=a target="to be or not" alphabet="ab =\"\\" best="" hits=0"# + "\n")
        #expect(try ResponseDecoder.decode(String(encoded(record).dropLast())) == .record(record))
        #expect(try ResponseDecoder.decode("help") == .record(Record(type: "help", fields: [])))
    }

    @Test(
        arguments: [
            (Status.ok(nil), "OK\n"),
            (.ok("pong"), "OK pong\n"),
            (.ok("started a"), "OK started a\n"),
            (.error(ProtocolError(.noSuchSession, "no session a")), "ERR no-such-session no session a\n"),
            (.error(ProtocolError(.badRequest, "two\nlines")), "ERR bad-request two lines\n"),
            (.ok("three\r\nlines"), "OK three  lines\n"),
            (.ok(""), "OK \n"),
            // Long texts, in bytes and in characters: the same line.
            (.ok(String(repeating: "é", count: 200)), "OK " + String(repeating: "é", count: 200) + "\n"),
            (.ok(String(repeating: "x", count: 256)), "OK " + String(repeating: "x", count: 256) + "\n"),
        ] as [(Status, String)])
    func statusLines(status: Status, line: String) {
        #expect(encoded(status) == line)
    }

    @Test(
        arguments: [Status.ok(nil), .ok("pong"), .ok("monkeyd version=0.1.0 protocol=1")]
            + ErrorCode.allCases.map {
                Status.error(ProtocolError($0, "a sentence for people"))
            })
    func statusRoundTrips(status: Status) throws {
        #expect(try ResponseDecoder.decode(String(encoded(status).dropLast())) == .status(status))
    }

    @Test func errorCodesAreStableWords() {
        let words = ErrorCode.allCases.map(\.rawValue)
        #expect(
            words == [
                "unknown-command", "bad-request", "bad-argument", "no-such-session", "too-many-sessions",
                "line-too-long", "busy", "denied", "shutting-down", "storage-error", "timed-out", "internal",
                "no-such-corpus", "bad-corpus",
            ])
    }

    @Test(
        arguments: [
            (Entry(id: 7, number: 7, text: "qwert", isHit: false), "entry session=s-1 id=7 number=7 text=qwert\n"),
            (
                Entry(id: 1, number: 1, text: "to be", isHit: true),
                "entry session=s-1 id=1 number=1 text=\"to be\" hit=yes\n"
            ),
            (Entry(id: 0, number: 0, text: "", isHit: false), "entry session=s-1 id=0 number=0 text=\"\"\n"),
            (
                Entry(id: .max, number: 10, text: "🐒=\"", isHit: false),
                "entry session=s-1 id=18446744073709551615 number=10 text=\"🐒=\\\"\"\n"
            ),
        ] as [(Entry, String)])
    func entryLine(entry: Entry, line: String) throws {
        var output: [UInt8] = []
        ResponseEncoder.appendEntry(entry, session: try sessionName("s-1"), to: &output)
        #expect(String(decoding: output, as: UTF8.self) == line)
        var fields: [(key: String, value: String)] = [
            ("session", "s-1"), ("id", String(entry.id)), ("number", String(entry.number)), ("text", entry.text),
        ]
        if entry.isHit { fields.append(("hit", "yes")) }
        #expect(try ResponseDecoder.decode(String(line.dropLast())) == .record(Record(type: "entry", fields: fields)))
    }

    @Test(arguments: [0, 1, 9, 10, 99, 100, 12_345, 1 << 32, UInt64.max - 1, UInt64.max] as [UInt64])
    func decimals(value: UInt64) {
        var output: [UInt8] = [0x41]
        ResponseEncoder.appendDecimal(value, to: &output)
        #expect(output == [0x41] + Array(String(value).utf8))
    }

    @Test func dataLinesNeverLookLikeStatusLines() throws {
        var harness = Harness()
        try harness.expectOK("START OK target=\"OK\" alphabet=OKR monkeys=3")
        harness.tick(times: 5)
        var output: [UInt8] = []
        for line in ["HELP", "STATUS OK"] {
            for record in try harness.send(line).records { ResponseEncoder.append(record, to: &output) }
        }
        var listing = try #require(try harness.send("STATUS").listing)
        #expect(harness.engine.fill(&listing, into: &output, byteLimit: .max))
        var stream = try #require(try harness.send("LOG OK").stream)
        #expect(harness.engine.fill(&stream, into: &output, byteLimit: .max) == .finished)
        let lines = output.split(separator: 0x0A)
        #expect(lines.count == Verb.allCases.count + 2 + 5)
        for line in lines {
            let first = try #require(line.first)
            #expect((UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first))
            guard case .record = try ResponseDecoder.decode(String(decoding: line, as: UTF8.self)) else {
                Issue.record("data line decoded as a status: \(String(decoding: line, as: UTF8.self))")
                continue
            }
        }
    }

    @Test(arguments: [
        "", " entry", "entry ", "entry a", "entry =b", "entry a=\"open", "entry a=\"bad\\q\"", "entry a=\"\\x4\"",
        "entry a=\"\\xZZ\"", "entry a=\"x\"y", "entry a=b  c=d", "entry  a=b", "entry a=b ", "entry a=\"ends\\",
    ])
    func malformedDataLinesAreRefused(line: String) {
        #expect(throws: ResponseDecoder.Malformed.self) { try ResponseDecoder.decode(line) }
    }

    @Test func aRecordIsReadFieldByField() throws {
        let record = try ResponseDecoder.record("entry id=7 text=\"two words\" empty=\"\" raw=a=b esc=\"\\x01\\t\\\"\"")
        #expect(record.type == "entry")
        #expect(record.fields.map(\.key) == ["id", "text", "empty", "raw", "esc"])
        #expect(record.fields.map(\.value) == ["7", "two words", "", "a=b", "\u{01}\t\""])
        #expect(try ResponseDecoder.record("deleted").fields.isEmpty)
    }
}
