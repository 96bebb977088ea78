import Testing

@testable import MonkeyCore

/// Corpora made in memory for the corpus tests, and the plain, slow
/// reference of the coverage rule that the index and `Coverage` are
/// checked against.
enum CorpusFixtures {
    static func alphabet(_ text: String) throws -> Alphabet {
        try Alphabet(validating: text, limit: 256)
    }

    /// A corpus of works named by their files ("a.txt" …), their texts as given.
    static func corpus(
        _ works: [(String, String)], alphabet: String = "abcdefghijklmnopqrstuvwxyz",
        limits: CorpusLimits = CorpusLimits()
    ) throws -> Corpus {
        let source = try CorpusSource(
            name: "test", files: works.map { ($0.0, Array($0.1.utf8)) }, limits: limits)
        return try Corpus(source: source, alphabet: try Self.alphabet(alphabet), limits: limits)
    }

    /// Works of random symbols: short alphabets and works, so that windows repeat and match often.
    static func randomCorpus(
        alphabet: String, works: Int, longest: Int, using random: inout WyRand
    ) throws -> Corpus {
        let characters = Array(alphabet)
        var files: [(String, String)] = []
        for work in 0..<works {
            let length = 1 + Int(random.next(below: UInt64(longest)))
            var text = ""
            // Half the works repeat a short pattern, so that chunks occur many times.
            let period = random.next(below: 2) == 0 ? 1 + Int(random.next(below: 3)) : length
            var pattern: [Character] = []
            for _ in 0..<period { pattern.append(characters[Int(random.next(below: UInt64(characters.count)))]) }
            for position in 0..<length {
                text.append(
                    random.next(below: 8) == 0
                        ? characters[Int(random.next(below: UInt64(characters.count)))] : pattern[position % period])
            }
            files.append(("w\(work).txt", text))
        }
        return try corpus(files, alphabet: alphabet)
    }

    /// A random text of the alphabet's characters.
    static func randomText(alphabet: String, length: Int, using random: inout WyRand) -> String {
        let characters = Array(alphabet)
        return String((0..<length).map { _ in characters[Int(random.next(below: UInt64(characters.count)))] })
    }

    /// The coverage rule (monkeyd(8)), written plainly: every window of `text` that occurs in
    /// a work covers its characters at every place it occurs. Answers
    /// whether each character of the corpus is covered, and the characters
    /// each text newly covered.
    static func referenceCoverage(
        of corpus: Corpus, chunkLength: Int, texts: [[UInt8]]
    ) -> (covered: [Bool], newlyCovered: [Int]) {
        var covered = [Bool](repeating: false, count: corpus.characterCount)
        var newly: [Int] = []
        for text in texts {
            var added = 0
            if text.count >= chunkLength {
                for start in 0...(text.count - chunkLength) {
                    let window = Array(text[start..<(start + chunkLength)])
                    for work in corpus.works where work.count >= chunkLength {
                        for position in work.start...(work.start + work.count - chunkLength)
                        where Array(corpus.symbols[position..<(position + chunkLength)]) == window {
                            for character in position..<(position + chunkLength) where !covered[character] {
                                covered[character] = true
                                added += 1
                            }
                        }
                    }
                }
            }
            newly.append(added)
        }
        return (covered, newly)
    }
}
