import Testing

@testable import MonkeyCore

/// Corpus sessions in the engine: what a change of corpus, alphabet, chunk
/// or target keeps and what it starts afresh, a refused or failed change
/// that changes nothing, and coverage as a function of a seed and settings.
struct EngineCorpusTests {
    static func source(_ name: String, _ works: [(String, String)]) throws -> CorpusSource {
        try CorpusSource(name: name, files: works.map { ($0.0, Array($0.1.utf8)) }, limits: CorpusLimits())
    }

    static let corpora: [String: CorpusSource] = {
        var corpora: [String: CorpusSource] = [:]
        corpora["small"] = try? source("small", [("one.txt", "Abba, bab!"), ("two.txt", "aaabbbaab")])
        corpora["other"] = try? source("other", [("x.txt", "bbbbba")])
        corpora["letters"] = try? source("letters", [("x.txt", "xyz")])
        return corpora
    }()

    /// Sends a line with the files of the corpus it names read, as the daemon does.
    static func send(_ line: String, to harness: inout Harness, now: UInt64 = 0) throws -> Reply {
        let request = try #require(try harness.parser.parse(line))
        let loaded: Request
        switch request {
        case .start(let name, var change), .set(let name, var change):
            if case .named(let corpus)? = change.corpus { change.corpus = .loaded(try #require(corpora[corpus])) }
            if case .start = request { loaded = .start(name, change) } else { loaded = .set(name, change) }
        default:
            loaded = request
        }
        var reply = harness.engine.handle(loaded, from: admin, now: now)
        if let change = reply.change {
            do {
                try harness.store.perform(change.effect, state: harness.engine.snapshot(of: change.session))
            } catch {
                reply = harness.engine.revert(change, because: error)
            }
        }
        return reply
    }

    static func ok(_ line: String, _ harness: inout Harness, now: UInt64 = 0) throws {
        let reply = try send(line, to: &harness, now: now)
        guard case .ok = reply.status else {
            Issue.record("\(line) answered \(String(describing: reply.status))")
            return
        }
    }

    /// Ticks until the session has covered something (at most 2000 ticks).
    static func typeUntilCovered(_ harness: inout Harness, _ name: String) throws {
        for step in 1...2000 {
            _ = harness.tick(now: ms(UInt64(step)))
            if try harness.status(name).value("covered") != "0" { return }
        }
        Issue.record("nothing covered")
    }

    @Test func aChangeOfWhatIsCoveredStartsAfreshAndOthersKeepIt() throws {
        var harness = Harness()
        try Self.ok("START c corpus=small alphabet=ab chunk=2 monkeys=3 interval=1ms", &harness)
        try Self.typeUntilCovered(&harness, "c")
        let covered = try harness.status("c").value("covered")
        // Monkeys, interval, seed and the same alphabet keep coverage.
        try Self.ok("SET c monkeys=4 interval=2ms seed=5", &harness)
        try Self.ok("SET c alphabet=ab", &harness)
        #expect(try harness.status("c").value("covered") == covered)
        // A new chunk starts afresh, hits with it.
        try Self.ok("SET c chunk=3", &harness)
        let status = try harness.status("c")
        #expect(status.value("covered") == "0" && status.value("hits") == "0" && status.value("windows") == "0")
        #expect(status.value("chunk") == "3")
        // The corpus set again: afresh too.
        try Self.typeUntilCovered(&harness, "c")
        try Self.ok("SET c corpus=small", &harness)
        #expect(try harness.status("c").value("covered") == "0")
        // A new alphabet re-normalises the session's copy: upper case kept.
        try Self.ok("SET c alphabet=abAB", &harness)
        let segments = try Self.send("COVERAGE c work=one", to: &harness).records
        #expect(segments.map { $0.value("text") ?? "" }.joined() == "Abbabab")
        // A target makes it plain.
        try Self.ok("SET c target=ab", &harness)
        let plain = try harness.status("c")
        #expect(plain.value("corpus") == nil && plain.value("target") == "ab" && plain.value("covered") == nil)
    }

    /// The daemon builds a corpus off its queue for the settings a request
    /// would leave the session with (`corpusBuild`); the engine takes it as
    /// it is when they still hold, and builds again from its copy when a
    /// change that came first moved them.
    @Test func aCorpusBuiltAwayIsTakenOnlyWhileItFits() throws {
        var harness = Harness()
        let small = try #require(Self.corpora["small"])
        func request(_ line: String) throws -> Request { try #require(try harness.parser.parse(line)) }
        #expect(
            harness.engine.corpusBuild(for: try request("START c corpus=small alphabet=ab chunk=3"))
                == CorpusBuild(corpus: "small", alphabet: try Alphabet(validating: "ab", limit: 256), chunk: 3))
        #expect(harness.engine.corpusBuild(for: try request("SET c corpus=small")) == nil, "no session c to set")
        #expect(harness.engine.corpusBuild(for: try request("START c target=ab")) == nil)
        let built = BuiltCorpus(
            try CorpusRun(
                source: small, alphabet: try Alphabet(validating: "ab", limit: 256), chunk: 3, limits: CorpusLimits()))
        let start = try request("START c corpus=small alphabet=ab chunk=3").with(built)
        guard case .ok = harness.engine.handle(start, from: admin, now: 0).status else {
            Issue.record("START with the corpus built was refused")
            return
        }
        #expect(try harness.status("c").value("corpus_chars") == "16")
        // The session's settings now: alphabet ab, chunk 3. A build made
        // for another alphabet (a SET of it came first) is built again.
        let stale = BuiltCorpus(
            try CorpusRun(
                source: small, alphabet: try Alphabet(validating: "abAB", limit: 256), chunk: 3, limits: CorpusLimits())
        )
        #expect(
            harness.engine.corpusBuild(for: try request("SET c corpus=small"))
                == CorpusBuild(corpus: "small", alphabet: try Alphabet(validating: "ab", limit: 256), chunk: 3))
        guard
            case .ok = harness.engine.handle(try request("SET c corpus=small").with(stale), from: admin, now: 0).status
        else {
            Issue.record("SET with a stale build was refused")
            return
        }
        let segments = harness.engine.handle(try request("COVERAGE c work=one"), from: admin, now: 0).records
        #expect(segments.map { $0.value("text") ?? "" }.joined() == "abbabab", "normalised for ab, not abAB")
    }

    @Test func aRefusedOrFailedChangeLeavesTheCorpusAsItWas() throws {
        let store = TestStore()
        var harness = Harness(store: store)
        try Self.ok("START c corpus=small alphabet=ab chunk=2 monkeys=3 interval=1ms", &harness)
        try Self.typeUntilCovered(&harness, "c")
        let before = try harness.status("c")
        // A work empty in the new alphabet: refused, nothing changed.
        let refused = try Self.send("SET c alphabet=xyz", to: &harness)
        #expect(refused.errorCode == .badCorpus)
        #expect(try harness.status("c") == before)
        #expect(try Self.send("START d corpus=letters alphabet=ab", to: &harness).errorCode == .badCorpus)
        #expect(harness.engine.session(named: try sessionName("d")) == nil)
        // The disk refuses: the old corpus and its coverage are back.
        store.failure = StorageError("disk full")
        #expect(try Self.send("SET c corpus=other", to: &harness).errorCode == .storageError)
        #expect(try Self.send("CLEAR c", to: &harness).errorCode == .storageError)
        #expect(try harness.status("c") == before)
        store.failure = nil
        try Self.ok("CLEAR c", &harness)
        let cleared = try harness.status("c")
        #expect(
            cleared.value("covered") == "0" && cleared.value("windows") == "0" && cleared.value("corpus") == "small")
    }

    /// With a seed, coverage after the entries is a function of the
    /// settings and their texts: engines seeded differently agree.
    @Test func withASeedCoverageIsTheSameOnEveryEngine() throws {
        var statuses: [Record] = []
        for engineSeed in [UInt64(1), 99] {
            var harness = Harness(seed: engineSeed)
            try Self.ok("START c corpus=small alphabet=ab chunk=3 monkeys=5 interval=1ms seed=7", &harness)
            for step in 1...200 { _ = harness.tick(now: ms(UInt64(step))) }
            try Self.ok("STOP c", &harness)
            statuses.append(try harness.status("c"))
        }
        #expect(statuses[0] == statuses[1])
        #expect(statuses[0].value("windows") != "0")
    }

    /// What a sync saves: the run of every corpus session, with its epoch,
    /// and nothing of the plain ones, nor of one that stopped being a corpus
    /// session or was deleted.
    @Test func theRunsSavedAtASyncAreThoseOfTheCorpusSessions() throws {
        var harness = Harness()
        try Self.ok("START p monkeys=2 interval=1ms", &harness)
        try Self.ok("START c corpus=small alphabet=ab chunk=2 interval=1ms", &harness)
        try Self.ok("START d corpus=other alphabet=ab chunk=2 interval=1ms", &harness)
        try Self.ok("START e corpus=letters alphabet=xyz chunk=2 interval=1ms", &harness)
        try Self.ok("SET d target=ab", &harness)
        try Self.ok("DELETE e", &harness)
        try Self.ok("START q monkeys=3 interval=1ms", &harness)
        for step in 1...20 { _ = harness.tick(now: ms(UInt64(step))) }
        let runs = harness.engine.corpusRuns()
        #expect(runs.map(\.name.text) == ["c"])
        let name = try #require(SessionName("c"))
        #expect(runs.map(\.epoch) == [try #require(harness.engine.session(named: name)).epoch])
        #expect(runs.map(\.run.corpus.name) == ["small"])
    }

    @Test func eventsOfCoverage() throws {
        var harness = Harness()
        try Self.ok("START c corpus=other alphabet=ab chunk=2 monkeys=2 interval=1ms", &harness)
        var events: [Event] = []
        for step in 1...5000 {
            events += harness.tick(now: ms(UInt64(step))).events
            if try harness.status("c").value("coverage") == "1" { break }
        }
        let hits = events.compactMap { event -> Int? in
            if case .covering(_, let new) = event.payload { return new }
            return nil
        }
        #expect(hits.reduce(0, +) == 6 && hits.allSatisfy { $0 > 0 })
        #expect(events.contains { if case .covered(let work) = $0.payload { work == "x" } else { false } })
        let percents = events.compactMap { event -> Int? in
            if case .coverage(let percent) = event.payload { return percent }
            return nil
        }
        #expect(percents.last == 100 && percents == percents.sorted())
        #expect(try harness.status("c").value("hits") == String(hits.count))
    }

    @Test func parsing() throws {
        #expect(parseError("START s corpus=a target=b")?.code == .badRequest)
        #expect(parseError("START s corpus=a target=")?.code == .badRequest)
        #expect(parseError("START s corpus=.a")?.code == .badArgument)
        #expect(parseError("START s chunk=0")?.code == .badArgument)
        #expect(parseError("START s chunk=65")?.code == .badArgument)
        #expect(parseError("SET s chunk=64") == nil && parseError("SET s corpus=") == nil)
        #expect(parseError("COVERAGE s work=hamlet") == nil && parseError("COVERAGE s format=bitmap") == nil)
        #expect(parseError("COVERAGE s work=a format=bitmap")?.code == .badRequest)
        #expect(parseError("COVERAGE s format=png")?.code == .badArgument)
        #expect(parseError("COVERAGE")?.code == .badRequest)
        #expect(parseError("WAIT s for=coverage=0")?.code == .badArgument)
        #expect(parseError("WAIT s for=coverage=101")?.code == .badArgument)
        let request = try RequestParser(limits: Limits()).parse("START s corpus=plays chunk=7")
        #expect(request == .start(try sessionName("s"), SettingsChange(corpus: .named("plays"), chunk: 7)))
        #expect(RequestEncoder.line(for: try #require(request)) == "START s corpus=plays chunk=7")
    }

    @Test func aCorpusCopyReadsBackAsWrittenAndDamageIsFound() throws {
        let source = try Self.source("plays", [("a.txt", "To be, or"), ("b.txt", "not é🐒")])
        let bytes = CorpusSourceFile.encode(source)
        #expect(try CorpusSourceFile.decode(bytes, limits: CorpusLimits()) == source)
        for index in [0, 9, 13, 20, bytes.count - 1] {
            var damaged = bytes
            damaged[index] ^= 0x40
            #expect(throws: CorpusSourceFile.Damage.self) {
                try CorpusSourceFile.decode(damaged, limits: CorpusLimits())
            }
        }
        #expect(throws: CorpusSourceFile.Damage.self) {
            try CorpusSourceFile.decode(Array(bytes.dropLast()), limits: CorpusLimits())
        }
    }

    @Test func theControlFileKeepsTheCorpusAndTheChunk() throws {
        for (corpus, chunk) in [("plays", 9), ("plays", 3), ("", 5)] {
            let settings = SessionSettings(
                monkeys: 9, interval: .millisecond, alphabet: .lowercaseLatin, target: TargetMatcher(target: ""),
                corpus: corpus, chunk: chunk)
            let snapshot = SessionSnapshot(
                name: try sessionName("s"), settings: settings, isTyping: true, nextID: 3, nextNumber: 3, typed: 2,
                hits: 1, bestLength: 0, epoch: 4)
            let record = ControlRecord.session(StoredSession(snapshot: snapshot, reservedID: 9, reservedNumber: 9))
            var bytes = ControlFile.preamble(ControlFile.logHeader, segment: 1)
            ControlFile.append(record, to: &bytes)
            #expect(ControlFile.decodeLog(bytes).records == [record])
        }
    }
}
