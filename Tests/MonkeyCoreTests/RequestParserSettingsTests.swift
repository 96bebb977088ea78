import Testing

@testable import MonkeyCore

struct RequestParserSettingsTests {
    let parser = RequestParser(limits: Limits())

    func change(_ settings: String) throws -> SettingsChange? {
        guard case .set(_, let change) = try parser.parse("SET a " + settings) else { return nil }
        return change
    }

    @Test(arguments: [("1", 1), ("10000", 10_000), ("42", 42), ("007", 7)])
    func monkeysInRange(value: String, expected: Int) throws {
        #expect(try change("monkeys=\(value)")?.monkeys == expected)
    }

    @Test(arguments: [
        "abc", "0", "10001", "-1", "+5", "1.5", "", "\"\"", "1e3", "9223372036854775808",
        "99999999999999999999999",
    ])
    func monkeysOutOfRangeOrUnreadableIsBadArgument(value: String) {
        #expect(parseError("SET a monkeys=\(value)")?.code == .badArgument)
        #expect(parseError("START a monkeys=\(value)")?.code == .badArgument)
    }

    @Test func monkeysFollowTheConfiguredLimit() {
        var limits = Limits()
        limits.maximumMonkeys = 5
        #expect(parseError("SET a monkeys=5", limits: limits) == nil)
        #expect(parseError("SET a monkeys=6", limits: limits)?.code == .badArgument)
    }

    @Test(
        arguments: [
            ("1ms", 1_000_000), ("24h", 86_400_000_000_000), ("1440min", 86_400_000_000_000),
            ("100", 100_000_000), ("1", 1_000_000), ("1.5s", 1_500_000_000), ("250ms", 250_000_000),
            ("1000us", 1_000_000), ("86400000", 86_400_000_000_000), ("0", 0), ("0ms", 0), ("0s", 0),
        ] as [(String, UInt64)])
    func intervalWithinBounds(value: String, nanoseconds: UInt64) throws {
        #expect(try change("interval=\(value)")?.interval == Interval(nanoseconds: nanoseconds))
    }

    @Test(arguments: [
        "999us", "0.5ms", "25h", "86400001ms", "24.001h", "", "abc", "-5", "\"5 s\"", "1e3", "1.5",
    ])
    func intervalOutOfBoundsOrUnreadableIsBadArgument(value: String) {
        #expect(parseError("SET a interval=\(value)")?.code == .badArgument)
    }

    @Test(arguments: ["1.5", "0.5", "100.0"])
    func aBareNumberWithAFractionIsRefusedWithTheSpellingsMeant(value: String) {
        let expected =
            "interval must be 0 (flat out) or a duration from 1ms to 24h (like 250ms, 1.5s, 2min), not '\(value)': "
            + "a number without a unit is whole milliseconds; write \(value)s or \(value)ms"
        for line in ["SET a interval=\(value)", "START a interval=\(value)", "START a interval=\"\(value)\""] {
            #expect(parseError(line) == ProtocolError(.badArgument, expected), "\(line)")
        }
    }

    @Test(arguments: ["0", "0ms", "25h", "soon", "1.5"])
    func timeoutOutOfRangeSaysTheWholeRange(value: String) {
        let hint = value == "1.5" ? ": a number without a unit is whole milliseconds; write 1.5s or 1.5ms" : ""
        #expect(
            parseError("WAIT a for=hit timeout=\(value)")
                == ProtocolError(
                    .badArgument, "timeout must be a duration from 1ns to 24h (like 50ms, 10s), not '\(value)'\(hint)"))
    }

    @Test(arguments: ["a", "ab c", "αβγ", "🐒🍌", "aé🐒", "e\u{301}"])
    func goodAlphabets(text: String) throws {
        #expect(try change("alphabet=\"\(text)\"")?.alphabet?.text == text)
    }

    static let allowed256 = String(String.UnicodeScalarView((0x100..<0x200).compactMap(Unicode.Scalar.init)))
    static let allowed257 = String(String.UnicodeScalarView((0x100...0x200).compactMap(Unicode.Scalar.init)))

    @Test func alphabetOfAtMost256Characters() throws {
        #expect(try change("alphabet=\(Self.allowed256)")?.alphabet?.count == 256)
        #expect(parseError("SET a alphabet=\(Self.allowed257)")?.code == .badArgument)
    }

    @Test(arguments: [
        "alphabet=", "alphabet=\"\"", "alphabet=abca", "alphabet=\"aa\"", #"alphabet="a\tb""#,
        "alphabet=ab\u{7F}", "alphabet=a\u{85}", #"alphabet="a\n""#, "alphabet=ααβ",
    ])
    func badAlphabetIsBadArgument(setting: String) {
        #expect(parseError("SET a " + setting)?.code == .badArgument)
    }

    @Test func targetOfAtMost1024Bytes() throws {
        let ascii = String(repeating: "a", count: 1024)
        let accented = String(repeating: "é", count: 512)
        #expect(try change("target=\(ascii)")?.target == ascii)
        #expect(try change("target=\(accented)")?.target == accented)
        #expect(try change("target=\"\"")?.target == "")
        #expect(parseError("SET a target=\(ascii)b")?.code == .badArgument)
        #expect(parseError("SET a target=\(accented)é")?.code == .badArgument)
    }

    @Test(arguments: [#"target="a\nb""#, #"target="\t""#, "target=a\u{7F}", "target=a\u{1B}[31m"])
    func targetWithControlCharacterIsBadArgument(setting: String) {
        #expect(parseError("SET a " + setting)?.code == .badArgument)
    }

    @Test(arguments: [
        "START a monkeys=1 monkeys=2", "SET a target=x target=y", "SET a interval=1s interval=2s",
        "START a alphabet=ab alphabet=cd", "SET a target=x target=x", "LOG a last=1 last=2", "TAIL a after=1 after=2",
    ])
    func duplicateKeyIsBadArgument(line: String) {
        #expect(parseError(line)?.code == .badArgument)
    }

    @Test(arguments: [
        "START a color=red", "SET a Monkeys=3", "SET a monkeys=3 speed=2", "LOG a first=3", "TAIL a target=x",
        "LOG a monkeys=1",
    ])
    func unknownKeyIsBadArgument(line: String) {
        #expect(parseError(line)?.code == .badArgument)
    }

    @Test func setWithoutSettingsIsBadRequest() {
        #expect(parseError("SET a")?.code == .badRequest)
        #expect(parseError("set a  \t")?.code == .badRequest)
    }

    @Test(
        arguments: [
            ("", LogQuery()), ("last=0", LogQuery(last: 0)), ("last=10", LogQuery(last: 10)),
            ("after=7", LogQuery(after: 7)), ("after=0", LogQuery(after: 0)),
            ("after=18446744073709551615", LogQuery(after: .max)), ("last=2147483647", LogQuery(last: 2_147_483_647)),
            ("after=3 last=2", LogQuery(last: 2, after: 3)), ("last=2 after=3", LogQuery(last: 2, after: 3)),
        ] as [(String, LogQuery)])
    func logAndTailQueries(arguments: String, expected: LogQuery) throws {
        let a = try sessionName("a")
        #expect(try parser.parse("LOG a \(arguments)") == .log([.name(a)], expected))
        #expect(try parser.parse("TAIL a \(arguments)") == .tail([.name(a)], expected))
    }

    @Test(arguments: [
        "last=-1", "last=abc", "last=", "last=2147483648", "after=-1", "after=abc", "after=",
        "after=18446744073709551616", "after=1.5",
    ])
    func badQueryIsBadArgument(argument: String) {
        #expect(parseError("LOG a \(argument)")?.code == .badArgument)
        #expect(parseError("TAIL a \(argument)")?.code == .badArgument)
    }

    @Test func aBadRequestIsReportedBeforeAnyValueIsUsed() {
        // A quoting error anywhere on the line wins over a bad value before it.
        #expect(parseError("SET a monkeys=0 target=\"open")?.code == .badRequest)
    }
}
