import Foundation
import Testing

/// Text from the daemon cannot reprogram the terminal: control characters
/// are shown as escapes in text output and as `\u00XX` in JSON.
@Suite("monkeyctl escaping")
struct MonkeyctlEscapingTests {
    /// Answers one request of `arguments` with `reply` and returns the result.
    private func run(_ arguments: [String], reply: String) throws -> MonkeyctlResult {
        let fake = try MonkeyctlFakeDaemon()
        let client = try fake.client.launch(arguments)
        let connection = try fake.accept()
        _ = try connection.readLine()
        try connection.send(reply)
        return try client.finish()
    }

    @Test func entryTextIsEscaped() throws {
        let result = try run(["log"], reply: "entry session=default id=1 number=1 text=\"a\\x1b[2J\\tb\\nc\"\nOK\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.lines == [#"1. a\x1b[2J\tb\nc"#])
    }

    @Test func jsonEscapesControlCharacters() throws {
        let result = try run(
            ["log", "--json"], reply: "entry session=default id=1 number=1 text=\"a\\x1b[2J\\tb\\nc\"\nOK\n")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.lines == [
                #"{"type":"entry","session":"default","id":1,"number":1,"text":"a\u001b[2J\u0009b\u000ac"}"#
            ])
        let object = try MonkeyctlJSONTests.object(result.lines.first ?? "")
        #expect(object["text"] as? String == "a\u{1B}[2J\tb\nc")
    }

    @Test func statusFieldsAreEscaped() throws {
        let result = try run(
            ["status"],
            reply: "session name=s state=running monkeys=1 interval=1h alphabet=\"a\\x07\" target=\"t\\x1b]0;x\" "
                + "typed=0 entries=0 hits=0 best=\"\"\nOK\n")
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains("\u{1B}") && !result.output.contains("\u{07}"), "\(result)")
        #expect(result.output.contains(#"of target "t\x1b]0;x""#))
        #expect(result.output.contains(#"alphabet "a\x07""#))
    }

    @Test func statusLinesAreEscaped() throws {
        let ok = try run(["ping"], reply: "OK po\u{1B}[5mng\n")
        #expect(ok.status == 0, "\(ok)")
        #expect(ok.lines == [#"po\x1b[5mng"#])
        let error = try run(["ping"], reply: "ERR bad-request no\u{1B}[5mpe\n")
        #expect(error.status == 1, "\(error)")
        #expect(error.errorLines == [#"monkeyctl: no\x1b[5mpe (bad-request)"#])
    }

    @Test func entryNumberIsEscaped() throws {
        let result = try run(["log"], reply: "entry session=default id=1 number=\"7\\x1b[2J\" text=abc\nOK\n")
        #expect(result.status == 0, "\(result)")
        #expect(!result.output.contains("\u{1B}"), "\(result)")
        #expect(result.lines == [#"7\x1b[2J. abc"#])
    }
}
