import Testing

@testable import MonkeyCore

/// The request encoder is the parser's inverse: every request it writes
/// reads back as the same request.
struct RequestEncoderTests {
    /// Characters a generated text draws from: letters, the bytes that need
    /// quotes, multi-byte characters.
    static let pieces: [Unicode.Scalar] = [
        "a", "b", "Z", "0", " ", "\"", "\\", "=", "'", "#", "é", "ß", "中", "🐒", "-", ".", "_",
    ]

    struct Generator {
        var random: WyRand

        mutating func below(_ bound: Int) -> Int { Int(random.next(below: UInt64(bound))) }

        mutating func text(maximumLength: Int) -> String {
            var text = String.UnicodeScalarView()
            for _ in 0..<below(maximumLength + 1) {
                text.append(RequestEncoderTests.pieces[below(RequestEncoderTests.pieces.count)])
            }
            return String(text)
        }

        mutating func name() -> SessionName {
            let first = Array("abcXYZ019_")
            let rest = Array("abcXYZ019_.-")
            while true {
                var text = String(first[below(first.count)])
                for _ in 0..<below(64) { text.append(rest[below(rest.count)]) }
                if let name = SessionName(text) { return name }
            }
        }

        mutating func change() -> SettingsChange {
            var change = SettingsChange()
            if below(2) == 0 { change.target = text(maximumLength: 12) }
            if below(2) == 0 { change.monkeys = 1 + below(10_000) }
            if below(2) == 0 {
                let milliseconds = UInt64(1 + below(86_400_000))
                let nanoseconds =
                    below(3) == 0 ? milliseconds * 1_000_000 + UInt64(below(1_000_000)) : milliseconds * 1_000_000
                change.interval = Interval(nanoseconds: min(nanoseconds, Interval.longestTick.nanoseconds))
            }
            if below(2) == 0 {
                var scalars = Array(Set(text(maximumLength: 10).unicodeScalars))
                if scalars.isEmpty { scalars = ["x"] }
                var alphabet = String.UnicodeScalarView()
                alphabet.append(contentsOf: scalars)
                change.alphabet = try? Alphabet(validating: String(alphabet), limit: 256)
            }
            switch below(4) {
            case 0: change.seed = .fresh
            case 1: change.seed = .seed(TypingSeed(random.next()))
            default: break
            }
            return change
        }

        mutating func query() -> LogQuery {
            LogQuery(
                last: below(2) == 0 ? below(Int(Int32.max)) : nil,
                after: below(2) == 0 ? random.next() : nil)
        }

        mutating func request() -> Request {
            switch below(16) {
            case 0: return .ping
            case 1: return .hello
            case 2: return .help
            case 3: return .quit
            case 4: return .metrics
            case 5: return .start(name(), change())
            case 6:
                var change = change()
                if change.isEmpty { change.monkeys = 3 }
                return .set(name(), change)
            case 7: return .stop(name())
            case 8: return .clear(name())
            case 9: return .delete(name())
            case 10: return .status(below(2) == 0 ? nil : name())
            case 11: return .log([.name(name())], query())
            case 12: return .tail([.name(name())], query())
            case 13:
                var query = query()
                query.after = nil
                return .tail([.name(name()), .glob(Glob("exp-[a-c]*?") ?? Glob("x*").unsafelyUnwrapped)], query)
            case 14:
                return .events(
                    EventsQuery(
                        after: below(2) == 0 ? nil : random.next(), session: below(2) == 0 ? nil : .name(name())))
            default:
                let conditions: [WaitCondition] = [.hit, .stopped, .best(1 + below(1000))]
                return .wait(
                    name(), conditions[below(3)],
                    timeout: below(2) == 0 ? nil : Interval(nanoseconds: UInt64(1 + below(1000)) * 1_000_000))
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func everyRequestReadsBackAsItself(seed: UInt64) throws {
        var generator = Generator(random: WyRand(seed: seed))
        let parser = RequestParser(limits: Limits())
        for _ in 0..<2_000 {
            let request = generator.request()
            let line = RequestEncoder.line(for: request)
            #expect(try parser.parse(line) == request, "\(line)")
        }
    }

    @Test(arguments: [
        ("plain", "plain"), ("", #""""#), ("to be", #""to be""#), ("a=b", #""a=b""#), (#"say "hi""#, #""say \"hi\"""#),
        (#"back\slash"#, #""back\\slash""#), ("tab\there", #""tab\there""#), ("line\nbreak", #""line\nbreak""#),
        ("🐒", "🐒"),
    ])
    func tokensAreQuotedOnlyWhenNeeded(text: String, token: String) throws {
        #expect(RequestEncoder.token(text) == token)
        #expect(try Tokenizer.tokens(in: "X " + token) == [.word("X"), .word(text)])
    }
}
