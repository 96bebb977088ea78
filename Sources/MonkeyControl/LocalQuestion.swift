import MonkeyCore

/// The settings of `odds` and `replay`, which run without a daemon, checked
/// here as the daemon checks them (with its default limits, see `Limits`).
/// A bad value is a usage error: nothing was asked of a daemon.
enum LocalQuestion {
    static let limits = Limits()

    static func odds(target: String?, monkeys: String?, alphabet: String?, interval: String?) throws(UsageError)
        -> OddsQuestion
    {
        guard let target else { throw UsageError("'odds' needs --target TEXT") }
        guard !target.isEmpty else { throw UsageError("'odds' needs a target that is not empty") }
        let size = target.utf8.count
        guard size <= limits.maximumTargetBytes else {
            throw UsageError("--target is \(size) bytes; at most \(limits.maximumTargetBytes) are allowed")
        }
        guard !target.unicodeScalars.contains(where: Alphabet.isControl) else {
            throw UsageError("--target may not contain control characters")
        }
        return OddsQuestion(
            target: target, monkeys: try self.monkeys(monkeys ?? "1"), alphabet: try self.alphabet(alphabet),
            interval: try self.interval(interval))
    }

    static func corpusOdds(
        corpus: String?, chunk: String?, alphabet: String?, monkeys: String?, interval: String?, coverage: String?
    ) throws(UsageError) -> CorpusOddsQuestion {
        guard let corpus, !corpus.isEmpty else { throw UsageError("--corpus needs a corpus name or directory") }
        guard corpus.contains("/") || SessionName(corpus) != nil else {
            throw UsageError("--corpus must be a corpus name (1 to 64 of A-Z a-z 0-9 _ . -) or a directory with a /")
        }
        let chunks = SessionSettings.chunks
        var length = SessionSettings.defaultChunk
        if let chunk {
            guard chunk.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(chunk), chunks.contains(number)
            else {
                throw UsageError(
                    "--chunk must be a whole number from \(chunks.lowerBound) to \(chunks.upperBound), not \(quote(chunk))"
                )
            }
            length = number
        }
        let percentText = coverage ?? "99.99"
        guard let percent = Double(percentText), percent > 0, percent < 100,
            percentText.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E })
        else {
            throw UsageError(
                "--coverage must be a percent above 0 and below 100 (like 99.99), not \(quote(percentText))")
        }
        return CorpusOddsQuestion(
            corpus: corpus, chunk: length, alphabet: try self.alphabet(alphabet),
            monkeys: try monkeys.map { text throws(UsageError) in try self.monkeys(text) },
            interval: try interval.map { text throws(UsageError) in try self.interval(text) }, fraction: percent / 100,
            percent: percentText)
    }

    static func replay(seed: String?, id: String?, monkeys: String?, alphabet: String?) throws(UsageError)
        -> ReplayQuestion
    {
        guard let seed, let id, let monkeys else {
            throw UsageError("'replay' needs --seed S, --id ID and --monkeys N")
        }
        guard let typingSeed = TypingSeed(parsing: seed) else {
            throw UsageError("--seed must be a whole number from 0 to \(UInt64.max), not \(quote(seed))")
        }
        guard id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let entry = UInt64(id), entry >= 1 else {
            throw UsageError("--id must be an entry id from 1 to \(UInt64.max), not \(quote(id))")
        }
        return ReplayQuestion(
            seed: typingSeed, id: entry, monkeys: try self.monkeys(monkeys), alphabet: try self.alphabet(alphabet))
    }

    private static func monkeys(_ text: String) throws(UsageError) -> Int {
        let range = 1...limits.maximumMonkeys
        // Digits only: Int("+5") would accept a sign the daemon does not.
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(text), range.contains(number)
        else {
            throw UsageError(
                "--monkeys must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(quote(text))")
        }
        return number
    }

    private static func interval(_ text: String?) throws(UsageError) -> Interval {
        guard let text else { return .defaultTick }
        let range = limits.shortestInterval...limits.longestInterval
        do {
            return try Interval.parse(text, in: range)
        } catch {
            throw UsageError(
                "--interval must be a duration from \(range.lowerBound) to \(range.upperBound) "
                    + "(like 250ms, 1.5s, 2min), not \(quote(text))\(error.hint)")
        }
    }

    private static func alphabet(_ text: String?) throws(UsageError) -> Alphabet {
        guard let text else { return .lowercaseLatin }
        do {
            return try Alphabet(validating: text, limit: limits.maximumAlphabet)
        } catch {
            switch error {
            case .empty: throw UsageError("--alphabet may not be empty")
            case .tooMany(let count, let limit):
                throw UsageError("--alphabet has \(count) characters; at most \(limit) are allowed")
            case .repeated(let character):
                throw UsageError("--alphabet repeats the character \(quote(String(character)))")
            case .controlCharacter: throw UsageError("--alphabet may not contain control characters")
            }
        }
    }

    /// A value from the command line in a message: escaped, quoted and cut short.
    private static func quote(_ text: String) -> String {
        "'\(Visible.shortened(text, limit: 40))'"
    }
}
