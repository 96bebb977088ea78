import Testing

@testable import MonkeyCore

/// The three steps of normalisation, each rule in a table.
struct CorpusNormalisationTests {
    static func normalised(_ text: String, alphabet: String) throws -> String {
        let corpusAlphabet = try CorpusAlphabet(try CorpusFixtures.alphabet(alphabet))
        let normalisation = Normalisation(alphabet: corpusAlphabet)
        return corpusAlphabet.text(of: normalisation.symbols(of: Array(text.utf8)))
    }

    static let letters = "abcdefghijklmnopqrstuvwxyz"

    @Test(arguments: [
        // Letters only, lower-cased: Anderson's rule.
        ("To be, or not to be: that is the question.", letters, "tobeornottobethatisthequestion"),
        ("HAMLET.\n\nAct I.  Scene 1", letters, "hamletactiscene"),
        ("don't 1599 — “quoted”", letters, "dontquoted"),
        // With a space: every run of white space is one space, ends included.
        ("  To be,\tor\n\n not ", letters + " ", " to be or not "),
        ("a\r\nb\u{0B}c\u{0C}d\u{85}e\u{A0}f\u{2003}g\u{3000}h", letters + " ", "a b c d e f g h"),
        // A dropped character ends a run: the steps are taken in order.
        ("a - b", letters + " ", "a  b"),
        ("a -- b,  c", letters + " ", "a  b c"),
        // Without a space, white space is dropped.
        ("a b\tc\nd", letters, "abcd"),
        // An upper-case letter in the alphabet: nothing is lower-cased.
        ("To Be or NOT", "TBNObeot", "ToBeoNOT"),
        ("Hamlet HAMLET", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "HHAMLET"),
        ("Hamlet HAMLET", "abcdefghijklmnopqrstuvwxyzH", "HamletH"),
        // Multi-byte alphabets: characters, not bytes.
        ("Ça va? Ÿes, ÉTÉ", "çaveéstÿ", "çavaÿesété"),
        ("ΣΟΦΙΑ σοφία", "σοφιαί", "σοφιασοφία"),
        ("İstanbul", "istanbul\u{0307}", "i\u{0307}stanbul"),
        ("日本語のテキスト", "日本語", "日本語"),
        ("emoji 🐒 monkey 🐒🐒", "🐒 ", " 🐒  🐒🐒"),
        // Digits and punctuation kept when the alphabet has them.
        ("Act 1, Scene 2.", "0123456789.,", "1,2."),
        // Nothing of the alphabet: empty.
        ("1234 !!", letters, ""),
    ])
    func normalisesByTheThreeSteps(text: String, alphabet: String, expected: String) throws {
        #expect(try Self.normalised(text, alphabet: alphabet) == expected)
    }

    @Test(arguments: [
        ("abc", true, false),
        ("abc ", true, true),
        ("aBc", false, false),
        ("ǅ", false, false),
        ("ß ", true, true),
        ("123", true, false),
    ])
    func decidesLowerCasingAndSpaceFromTheAlphabet(alphabet: String, lowerCases: Bool, keepsSpace: Bool) throws {
        let normalisation = Normalisation(alphabet: try CorpusAlphabet(try CorpusFixtures.alphabet(alphabet)))
        #expect(normalisation.lowerCases == lowerCases)
        #expect((normalisation.spaceSymbol != nil) == keepsSpace)
    }

    @Test func takesTheAlphabetsOrderForSymbols() throws {
        let alphabet = try CorpusAlphabet(try CorpusFixtures.alphabet("zyxé"))
        #expect(alphabet.symbols(of: "xyzé") == [2, 1, 0, 3])
        #expect(alphabet.text(of: [3, 0]) == "éz")
        #expect(alphabet.symbols(of: "a") == nil)
        #expect(!alphabet.isSingleByte)
    }

    @Test func refusesAnAlphabetOfMoreThan256Characters() throws {
        let text = String((0..<300).map { Character(Unicode.Scalar(0x100 + $0)!) })
        let alphabet = try Alphabet(validating: text, limit: 1000)
        #expect(throws: CorpusError.alphabetTooLarge(count: 300, limit: 256)) { try CorpusAlphabet(alphabet) }
        #expect(CorpusError.alphabetTooLarge(count: 300, limit: 256).kind == .badArgument)
    }
}
