import Testing

@testable import MonkeyCore

func makeSession(
    monkeys: Int = 1, alphabet: Alphabet = .lowercaseLatin, target: String = "", retention: Int = 10_000
) throws -> Session {
    let settings = SessionSettings(
        monkeys: monkeys, interval: .defaultTick, alphabet: alphabet, target: TargetMatcher(target: target))
    return Session(name: try sessionName("s"), settings: settings, retention: retention)
}

/// The longest prefix of `target` (in scalars) that `text` contains: the
/// reference the matcher is checked against.
func referenceBest(_ target: String, in text: String) -> Int {
    let needle = Array(target.unicodeScalars)
    let haystack = Array(text.unicodeScalars)
    var best = 0
    for start in haystack.indices {
        var length = 0
        while length < needle.count && start + length < haystack.count && haystack[start + length] == needle[length] {
            length += 1
        }
        best = max(best, length)
    }
    return best
}

struct SessionTests {
    @Test func idsNeverRepeatAndNumbersRestartAfterClear() throws {
        var session = try makeSession()
        var random = WyRand(seed: 1)
        var entries: [Entry] = []
        for _ in 0..<5 { entries.append(session.type(using: &random)) }
        session.clear(epoch: 9)
        #expect(session.log.isEmpty)
        #expect(session.typed == 0)
        for _ in 0..<3 { entries.append(session.type(using: &random)) }
        session.clear(epoch: 9)
        entries.append(session.type(using: &random))
        #expect(entries.map(\.id) == Array(1...9))
        #expect(entries.map(\.number) == [1, 2, 3, 4, 5, 1, 2, 3, 1])
        #expect(session.nextID == 10)
        #expect(session.nextNumber == 2)
    }

    @Test(arguments: [1, 7, 100], ["abcdefghijklmnopqrstuvwxyz", "αβγ", "🐒🍌", "aé🐒 ", "e\u{301}", "x"])
    func entryHasMonkeysCharactersFromTheAlphabet(monkeys: Int, letters: String) throws {
        var session = try makeSession(monkeys: monkeys, alphabet: try alphabet(letters))
        var random = WyRand(seed: 3)
        let allowed = Set(letters.unicodeScalars)
        for _ in 0..<50 {
            let entry = session.type(using: &random)
            #expect(entry.text.unicodeScalars.count == monkeys)
            #expect(entry.text.unicodeScalars.allSatisfy(allowed.contains))
        }
    }

    @Test func retentionDropsOldestWithoutRenumbering() throws {
        var session = try makeSession(retention: 3)
        var random = WyRand(seed: 1)
        for _ in 0..<5 { _ = session.type(using: &random) }
        #expect(session.log.count == 3)
        #expect((0..<3).map { session.log[$0].id } == [3, 4, 5])
        #expect((0..<3).map { session.log[$0].number } == [3, 4, 5])
        #expect(session.typed == 5)
        session.setRetention(2)
        #expect((0..<session.log.count).map { session.log[$0].number } == [4, 5])
    }

    @Test func settingsChangesApplyToTheNextTick() throws {
        var session = try makeSession(monkeys: 2, alphabet: try alphabet("a"))
        var random = WyRand(seed: 1)
        #expect(session.type(using: &random).text == "aa")
        session.apply(SettingsChange(monkeys: 4))
        #expect(session.type(using: &random).text == "aaaa")
        session.apply(SettingsChange(alphabet: try alphabet("🐒")))
        #expect(session.type(using: &random).text == "🐒🐒🐒🐒")
        session.apply(SettingsChange(monkeys: 1, interval: Interval(nanoseconds: 5_000_000)))
        #expect(session.type(using: &random).text == "🐒")
        #expect(session.settings.interval == Interval(nanoseconds: 5_000_000))
    }

    @Test(
        arguments: [
            ("a", "a", 1, true), ("aa", "a", 3, true), ("aa", "ab", 3, false), ("to be", "tobe ", 5, false),
            ("🐒", "🐒", 1, true), ("é", "é", 1, true), ("", "abc", 5, false),
        ] as [(String, String, Int, Bool)])
    func hitWhenTextContainsTarget(target: String, letters: String, monkeys: Int, always: Bool) throws {
        var session = try makeSession(monkeys: monkeys, alphabet: try alphabet(letters), target: target)
        var random = WyRand(seed: 11)
        var hits: UInt64 = 0
        for _ in 0..<300 {
            let entry = session.type(using: &random)
            let contains = !target.isEmpty && referenceBest(target, in: entry.text) == target.unicodeScalars.count
            #expect(entry.isHit == contains, "\(entry.text)")
            if always { #expect(entry.isHit) }
            if entry.isHit { hits += 1 }
        }
        #expect(session.hits == hits)
        if target.isEmpty { #expect(hits == 0 && session.best == "") }
    }

    @Test(
        arguments: [
            ("abab", "ab", 3), ("monkey", "mnoekyz", 4), ("αβγα", "αβγ", 3), ("a🐒é", "a🐒eé", 2),
            ("zzz", "z", 2), ("xyz", "x", 5),
        ] as [(String, String, Int)])
    func bestIsTheLongestPrefixSeenAndNeverShrinks(target: String, letters: String, monkeys: Int) throws {
        var session = try makeSession(monkeys: monkeys, alphabet: try alphabet(letters), target: target)
        var random = WyRand(seed: 21)
        var expected = 0
        for _ in 0..<500 {
            let entry = session.type(using: &random)
            expected = max(expected, referenceBest(target, in: entry.text))
            #expect(session.bestLength == expected, "\(entry.text)")
            #expect(session.best == String(String.UnicodeScalarView(target.unicodeScalars.prefix(expected))))
        }
    }

    @Test func changingTheTargetResetsHitsAndBest() throws {
        var session = try makeSession(monkeys: 3, alphabet: try alphabet("ab"), target: "ab")
        var random = WyRand(seed: 2)
        for _ in 0..<50 { _ = session.type(using: &random) }
        #expect(session.hits > 0)
        #expect(session.best == "ab")
        session.apply(SettingsChange(target: "ab"))
        #expect(session.hits > 0, "setting the same target again keeps the counters")
        session.apply(SettingsChange(monkeys: 1, alphabet: try alphabet("b"), target: "bbbbbbb"))
        #expect(session.hits == 0)
        #expect(session.best == "")
        _ = session.type(using: &random)
        #expect(session.best == "b")
        session.apply(SettingsChange(target: ""))
        #expect(session.best == "")
        _ = session.type(using: &random)
        #expect(session.hits == 0 && session.best == "")
    }

    @Test func clearResetsCountersButKeepsSettings() throws {
        var session = try makeSession(monkeys: 2, alphabet: try alphabet("a"), target: "a")
        var random = WyRand(seed: 2)
        for _ in 0..<4 { _ = session.type(using: &random) }
        #expect(session.hits == 4)
        session.clear(epoch: 9)
        #expect(session.hits == 0 && session.bestLength == 0 && session.typed == 0)
        #expect(session.settings.monkeys == 2 && session.settings.target.target == "a")
    }

    @Test func restoringContinuesPastSavedIdsAndNumbers() throws {
        let settings = SessionSettings(
            monkeys: 1, interval: .defaultTick, alphabet: try alphabet("a"), target: TargetMatcher(target: "aaa"))
        let snapshot = SessionSnapshot(
            name: try sessionName("s"), settings: settings, isTyping: true, nextID: 40, nextNumber: 9, typed: 8,
            hits: 0, bestLength: 99)
        let entries = (5...12).map { Entry(id: UInt64($0) * 5, number: UInt64($0) - 4, text: "a", isHit: false) }
        var session = Session(restoring: snapshot, entries: entries, retention: 5)
        #expect(session.log.count == 5)
        #expect(session.bestLength == 3, "best is capped at the target's length")
        #expect(session.isTyping)
        var random = WyRand(seed: 1)
        let next = session.type(using: &random)
        #expect(next.id == 61 && next.number == 9)
        session.skip(toID: 100, number: 50)
        #expect(session.type(using: &random).id == 100)
        session.skip(toID: 10, number: 10)
        #expect(session.nextID == 101 && session.nextNumber == 51)
    }

    @Test func targetMatcherWorksOnCharacterBoundaries() {
        let matcher = TargetMatcher(target: "aé🐒b")
        #expect(matcher.length == 4)
        #expect(matcher.prefix(characters: 0) == "")
        #expect(matcher.prefix(characters: 2) == "aé")
        #expect(matcher.prefix(characters: 3) == "aé🐒")
        #expect(matcher.prefix(characters: 9) == "aé🐒b")
        #expect(matcher.isHit("xxaé🐒bxx"))
        #expect(!matcher.isHit("aé🐒"))
        #expect(matcher.longestPrefix(in: "zaé🐒", longerThan: 0) == 3)
        #expect(matcher.longestPrefix(in: "a", longerThan: 2) == 2)
        #expect(!TargetMatcher(target: "").isHit("anything"))
    }
}
