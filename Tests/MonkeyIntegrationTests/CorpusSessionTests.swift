import Foundation
import Glibc
import MonkeyCore
import Testing

/// Corpus sessions (monkeyd(8), Corpora and coverage) end to end: the real
/// daemon covers a small corpus, and what it says is checked against a
/// plain, slow reading of the rule on the entries LOG gives back.
@Suite("Corpus sessions")
struct CorpusSessionTests {
    /// Makes `corpus_dir/NAME` with `files` (name → contents) in a state
    /// directory's default `corpora`.
    static func makeCorpus(_ name: String, _ files: [String: String], in state: String) throws {
        let directory = state + "/corpora/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (file, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + file)) }
    }

    /// The works of the test corpus, normalised for `ab` by hand: letters
    /// lower-cased, everything else dropped.
    static let works: [(name: String, file: String, text: String, normalised: String)] = [
        ("one", "one.txt", "Abba, bab!\n", "abbabab"),
        ("two", "two.txt", "aaa BBB\naab", "aaabbbaab"),
        ("zed", "zed.txt", "ba", "ba"),
    ]

    static func makeTestCorpus(in state: String) throws {
        try makeCorpus("small", Dictionary(uniqueKeysWithValues: works.map { ($0.file, $0.text) }), in: state)
    }

    /// §13's rule, slowly: every window of `chunk` characters of every
    /// entry, wherever it occurs in a work, covers its characters there.
    /// Answers each work's covered flags and each entry's count of new ones.
    static func referenceCoverage(of entries: [String], chunk: Int) -> (covered: [[Bool]], new: [Int]) {
        let texts = works.map { Array($0.normalised) }
        var covered = texts.map { [Bool](repeating: false, count: $0.count) }
        var new: [Int] = []
        for entry in entries {
            let characters = Array(entry)
            var added = 0
            if characters.count >= chunk {
                for start in 0...(characters.count - chunk) {
                    let window = Array(characters[start..<(start + chunk)])
                    for (work, text) in texts.enumerated() where text.count >= chunk {
                        for place in 0...(text.count - chunk) where Array(text[place..<(place + chunk)]) == window {
                            for position in place..<(place + chunk) where !covered[work][position] {
                                covered[work][position] = true
                                added += 1
                            }
                        }
                    }
                }
            }
            new.append(added)
        }
        return (covered, new)
    }

    /// A work's covered flags and text as COVERAGE work= gives them, checked to alternate.
    static func segments(_ daemon: DaemonProcess, _ session: String, work: String) throws -> (
        covered: [Bool], text: String
    ) {
        let lines = try daemon.request("COVERAGE \(session) work=\(work)")
        #expect(lines.last == "OK", "\(lines)")
        var covered: [Bool] = []
        var text = ""
        var last: String?
        for line in lines.dropLast() {
            let segment = try fields(line)
            #expect(segment["type"] == "segment")
            #expect(Int(segment["offset"] ?? "") == covered.count)
            #expect(segment["covered"] != last, "adjacent segments alternate")
            last = segment["covered"]
            let length = Int(segment["length"] ?? "") ?? -1
            #expect(segment["text"]?.count == length)
            covered += [Bool](repeating: segment["covered"] == "yes", count: max(0, length))
            text += segment["text"] ?? ""
        }
        return (covered, text)
    }

    @Test func coverageMatchesTheRuleCharacterByCharacter() throws {
        let state = TemporaryDirectory()
        try Self.makeTestCorpus(in: state.path)
        let daemon = try DaemonProcess(stateDirectory: state.path)
        let started = try daemon.request("START c corpus=small alphabet=ab chunk=3 monkeys=4 interval=1ms")
        #expect(started.last?.hasPrefix("OK") == true, "\(started)")
        #expect(try eventually { Int(try fields(daemon.request("STATUS c")[0])["typed"] ?? "") ?? 0 >= 40 })
        _ = try daemon.request("STOP c")
        let entries = try daemon.request("LOG c").dropLast().map(fields)
        let texts = entries.map { $0["text"] ?? "" }
        let reference = Self.referenceCoverage(of: texts, chunk: 3)
        for (index, work) in Self.works.enumerated() {
            let shown = try Self.segments(daemon, "c", work: work.name)
            #expect(shown.text == work.normalised)
            #expect(shown.covered == reference.covered[index], "work \(work.name)")
        }
        // Each entry is a hit exactly when it covered something new.
        for (entry, new) in zip(entries, reference.new) {
            #expect((entry["hit"] ?? "no") == (new > 0 ? "yes" : "no"), "entry \(entry["id"] ?? "")")
        }
        let status = try fields(daemon.request("STATUS c")[0])
        let covered = reference.covered.joined().filter { $0 }.count
        #expect(status["corpus"] == "small" && status["chunk"] == "3" && status["works"] == "3")
        #expect(status["corpus_chars"] == "18" && status["covered"] == String(covered))
        #expect(status["hits"] == String(reference.new.filter { $0 > 0 }.count))
        #expect(status["windows"] == String(2 * texts.count))
        #expect(status["target"] == nil && status["best"] == nil && status["chance"] == nil)
        #expect(status["expected_coverage"] != nil && status["coverage"] != nil)
        let complete = reference.covered.filter { $0.allSatisfy { $0 } }.count
        #expect(status["works_complete"] == String(complete))
        // The table of works.
        let table = try daemon.request("COVERAGE c")
        #expect(table.count == 4 && table.last == "OK", "\(table)")
        for (line, (index, work)) in zip(table, Self.works.enumerated()) {
            let row = try fields(line)
            let workCovered = reference.covered[index].filter { $0 }.count
            #expect(row["type"] == "work" && row["name"] == work.name)
            #expect(row["chars"] == String(work.normalised.count) && row["covered"] == String(workCovered))
            #expect(row["complete"] == (workCovered == work.normalised.count ? "yes" : "no"))
        }
        // The longest run, worked out from the reference.
        var longest = (length: 0, work: "")
        for (index, flags) in reference.covered.enumerated() {
            var run = 0
            for flag in flags {
                run = flag ? run + 1 : 0
                if run > longest.length { longest = (run, Self.works[index].name) }
            }
        }
        #expect(status["longest_run"] == String(longest.length))
        #expect(status["longest_run_work"] == (longest.length > 0 ? longest.work : nil))
    }

    @Test func refusesWhatCannotBeACorpus() throws {
        let state = TemporaryDirectory()
        let outside = TemporaryDirectory()
        try Self.makeCorpus("good", ["a.txt": "abc"], in: state.path)
        try Self.makeCorpus("latin1", ["a.txt": "ok", "b.txt": "caf\u{E9}"], in: state.path)
        try Data([0x61, 0xE9, 0x62]).write(to: URL(fileURLWithPath: state.path + "/corpora/latin1/b.txt"))
        try Self.makeCorpus("empty", ["notes": "x"], in: state.path)
        try Self.makeCorpus("blank", ["a.txt": "abc", "b.txt": "123 !"], in: state.path)
        try Self.makeCorpus("big", ["a.txt": String(repeating: "abcd", count: 300)], in: state.path)
        try Self.makeCorpus("badname", ["-x.txt": "abc"], in: state.path)
        try Self.makeCorpus("link", ["a.txt": "abc"], in: state.path)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside.path + "/secret.txt"))
        #expect(symlink(outside.path + "/secret.txt", state.path + "/corpora/link/b.txt") == 0)
        let daemon = try DaemonProcess(configuration: "max_corpus_bytes = 1000\n", stateDirectory: state.path)
        func refusal(_ request: String) throws -> String {
            try daemon.request(request).last ?? ""
        }
        #expect(try refusal("START s corpus=nothing").hasPrefix("ERR no-such-corpus "))
        let latin1 = try refusal("START s corpus=latin1")
        #expect(latin1.hasPrefix("ERR bad-corpus ") && latin1.contains("b.txt") && latin1.contains("UTF-8"))
        #expect(try refusal("START s corpus=empty").hasPrefix("ERR bad-corpus "))
        let blank = try refusal("START s corpus=blank")
        #expect(blank.hasPrefix("ERR bad-corpus ") && blank.contains("b.txt"), "\(blank)")
        let big = try refusal("START s corpus=big")
        #expect(big.hasPrefix("ERR bad-corpus ") && big.contains("1000"), "\(big)")
        let badName = try refusal("START s corpus=badname")
        #expect(badName.hasPrefix("ERR bad-corpus ") && badName.contains("-x.txt"), "\(badName)")
        let link = try refusal("START s corpus=link")
        #expect(link.hasPrefix("ERR bad-corpus ") && link.contains("b.txt"), "\(link)")
        #expect(try refusal("START s corpus=good target=abc").hasPrefix("ERR bad-request "))
        #expect(try refusal("START s corpus=good chunk=65").hasPrefix("ERR bad-argument "))
        #expect(try refusal("START s corpus=../x").hasPrefix("ERR bad-argument "))
        // Nothing was made by the refusals.
        #expect(try refusal("STATUS s").hasPrefix("ERR no-such-session "))
        // A SET refused leaves a corpus session as it was.
        #expect(try refusal("START s corpus=good alphabet=abc chunk=2 interval=1h").hasPrefix("OK"))
        #expect(try refusal("SET s alphabet=xyz").hasPrefix("ERR bad-corpus "))
        let status = try fields(daemon.request("STATUS s")[0])
        #expect(status["alphabet"] == "abc" && status["corpus"] == "good" && status["corpus_chars"] == "3")
        // A target makes it plain; corpus= again a corpus session, target gone.
        #expect(try refusal("SET s target=ab").hasPrefix("OK"))
        let plain = try fields(daemon.request("STATUS s")[0])
        #expect(plain["corpus"] == nil && plain["target"] == "ab" && plain["coverage"] == nil)
        #expect(try refusal("COVERAGE s").hasPrefix("ERR bad-argument "))
        #expect(try refusal("SET s corpus=good").hasPrefix("OK"))
        let again = try fields(daemon.request("STATUS s")[0])
        #expect(again["corpus"] == "good" && again["target"] == nil)
        #expect(try refusal("COVERAGE s work=nope").hasPrefix("ERR bad-argument "))
        #expect(try refusal("SET s corpus=").hasPrefix("OK"))
        #expect(try fields(daemon.request("STATUS s")[0])["corpus"] == nil)
    }

    /// Events of a corpus session: each hit says how many characters it
    /// covered (no text), each work completed is `covered`, each new whole
    /// percent `coverage`; WAIT for=coverage=P waits for the percent, or
    /// answers at once when it is there; METRICS has the figures.
    @Test func eventsWaitAndMetricsFollowCoverage() throws {
        let state = TemporaryDirectory()
        try Self.makeCorpus("tiny", ["x.txt": "abba", "y.txt": "aab"], in: state.path)
        let daemon = try DaemonProcess(stateDirectory: state.path)
        let waiter = try daemon.connect()
        _ = try daemon.request("START c corpus=tiny alphabet=ab chunk=2 monkeys=3 interval=1h")
        try waiter.send(line: "WAIT c for=coverage=100 timeout=30s")
        _ = try daemon.request("SET c interval=1ms")
        let met = try waiter.readResponse()
        #expect(met.count == 2 && met.last == "OK", "\(met)")
        // Met by the event that reached it.
        let reached = try fields(met[0])
        #expect(reached["kind"] == "coverage" && reached["percent"] == "100", "\(met)")
        let session = try fields(daemon.request("STATUS c")[0])
        #expect(session["coverage"] == "1" && session["covered"] == "7" && session["works_complete"] == "2")
        // At once, now that it is covered.
        let atOnce = try daemon.request("WAIT c for=coverage=50")
        #expect(atOnce.last == "OK")
        #expect(try fields(atOnce[0])["type"] == "session")
        _ = try daemon.request("STOP c")
        let events = try daemon.request("EVENTS after=0 session=c\n").dropLast().map(fields)
        let hits = events.filter { $0["kind"] == "hit" }
        #expect(!hits.isEmpty && hits.allSatisfy { $0["text"] == nil && Int($0["new"] ?? "") ?? 0 > 0 })
        #expect(hits.compactMap { Int($0["new"] ?? "") }.reduce(0, +) == 7)
        let hitIDs = Set(hits.compactMap { $0["entry_id"] })
        let entries = try daemon.request("LOG c").dropLast().map(fields)
        #expect(Set(entries.filter { $0["hit"] == "yes" }.compactMap { $0["id"] }) == hitIDs)
        #expect(Set(events.filter { $0["kind"] == "covered" }.compactMap { $0["work"] }) == ["x", "y"])
        let percents = events.filter { $0["kind"] == "coverage" }.compactMap { Int($0["percent"] ?? "") }
        #expect(percents.last == 100 && percents == percents.sorted() && Set(percents).count == percents.count)
        // Bitmap lines: every character covered.
        let bitmap = try daemon.request("COVERAGE c format=bitmap")
        #expect(bitmap.count == 4 && bitmap.last == "OK", "\(bitmap)")
        let header = try fields(bitmap[0])
        #expect(header["type"] == "coverage" && header["digest"]?.count == 64)
        #expect(try bitmap[1...2].map { try fields($0)["data"] } == ["Dw==", "Bw=="])
        let metrics = try daemon.request("METRICS")
        #expect(metrics.contains("monkeyd_session_corpus_characters{session=\"c\"} 7"))
        #expect(metrics.contains("monkeyd_session_covered_characters{session=\"c\"} 7"))
        #expect(metrics.contains { $0.hasPrefix("monkeyd_session_windows_total{session=\"c\"} ") })
        // CLEAR starts coverage afresh.
        _ = try daemon.request("CLEAR c")
        let cleared = try fields(daemon.request("STATUS c")[0])
        #expect(cleared["covered"] == "0" && cleared["windows"] == "0" && cleared["longest_run"] == "0")
        #expect(cleared["longest_run_work"] == nil)
    }

    /// A text of `count` letters a and b, the same every time.
    static func letters(_ count: Int, seed: UInt64) -> String {
        var state = seed
        return String(
            (0..<count).map { _ -> Character in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return state >> 33 & 1 == 0 ? "a" : "b"
            })
    }

    static func coverageFiles(_ state: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: state + "/coverage")) ?? []).filter {
            $0.hasSuffix(".coverage")
        }
    }

    /// Coverage and the session's own copy of its works survive a restart
    /// and kill -9: back as of a sync, never more than the entries the log
    /// holds; edits of the files in corpus_dir change nothing.
    @Test func coverageSurvivesRestartAndKill() throws {
        let state = TemporaryDirectory()
        try Self.makeCorpus(
            "r", ["p.txt": Self.letters(300, seed: 1), "q.txt": Self.letters(200, seed: 2)], in: state.path)
        let configuration = "sync_interval = 20ms\n"
        var daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("START c corpus=r alphabet=ab chunk=8 monkeys=9 interval=1ms")
        #expect(try eventually { Int(try fields(daemon.request("STATUS c")[0])["covered"] ?? "") ?? 0 > 50 })
        _ = try daemon.request("STOP c")
        let before = try fields(daemon.request("STATUS c")[0])
        let segmentsBefore = try Self.segments(daemon, "c", work: "p")
        // The files in corpus_dir change; the session keeps its copy.
        try Self.makeCorpus("r", ["p.txt": "ab", "q.txt": "ba"], in: state.path)
        #expect(try daemon.stop() == 0)
        daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let after = try fields(daemon.request("STATUS c")[0])
        for key in ["corpus_chars", "covered", "windows", "longest_run", "works_complete", "hits", "typed"] {
            #expect(after[key] == before[key], "\(key)")
        }
        #expect(try Self.segments(daemon, "c", work: "p") == segmentsBefore)
        // kill -9 while typing: what comes back is covered by the entries logged.
        _ = try daemon.request("START c")
        let covered = Int(before["covered"] ?? "") ?? 0
        #expect(try eventually { Int(try fields(daemon.request("STATUS c")[0])["covered"] ?? "") ?? 0 > covered + 20 })
        let files = Self.coverageFiles(state.path)
        #expect(files.count == 1, "\(files)")
        try daemon.stop(signal: SIGKILL)
        daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try daemon.request("STOP c")
        let restored = try fields(daemon.request("STATUS c")[0])
        #expect(Int(restored["covered"] ?? "") ?? 0 >= covered, "back as of a sync after the first restart")
        let entries = try daemon.request("LOG c").dropLast().map { try fields($0)["text"] ?? "" }
        #expect(Int(restored["windows"] ?? "") ?? .max <= 2 * entries.count)
        // The original works, as the session's copy holds them.
        let works = [Array(Self.letters(300, seed: 1)), Array(Self.letters(200, seed: 2))]
        var reference = works.map { [Bool](repeating: false, count: $0.count) }
        for entry in entries {
            let characters = Array(entry)
            for start in 0...(characters.count - 8) {
                let window = Array(characters[start..<(start + 8)])
                for (work, text) in works.enumerated() {
                    for place in 0...(text.count - 8) where Array(text[place..<(place + 8)]) == window {
                        for position in place..<(place + 8) { reference[work][position] = true }
                    }
                }
            }
        }
        for (index, work) in ["p", "q"].enumerated() {
            let shown = try Self.segments(daemon, "c", work: work)
            #expect(shown.text == String(works[index]))
            #expect(zip(shown.covered, reference[index]).allSatisfy { !$0 || $1 }, "never more than was typed: \(work)")
        }
    }

    /// A damaged coverage file is set aside, said in the journal (stderr
    /// here), and the session's coverage restarts.
    @Test func aDamagedCoverageFileIsSetAside() throws {
        let state = TemporaryDirectory()
        try Self.makeCorpus("r", ["p.txt": Self.letters(300, seed: 3)], in: state.path)
        var daemon = try DaemonProcess(stateDirectory: state.path)
        _ = try daemon.request("START c corpus=r alphabet=ab chunk=8 monkeys=9 interval=1ms")
        #expect(try eventually { Int(try fields(daemon.request("STATUS c")[0])["covered"] ?? "") ?? 0 > 10 })
        _ = try daemon.request("STOP c")
        #expect(try daemon.stop() == 0)
        let files = Self.coverageFiles(state.path)
        #expect(files.count == 1, "\(files)")
        let path = state.path + "/coverage/" + files[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        daemon = try DaemonProcess(stateDirectory: state.path)
        let status = try fields(daemon.request("STATUS c")[0])
        #expect(status["covered"] == "0" && status["windows"] == "0" && status["corpus"] == "r")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
        #expect(daemon.standardError.contains("damaged"), "\(daemon.standardError)")
    }

    /// `monkeyctl start --corpus`, `status`, `coverage` (a table with bars;
    /// a work's text with `_` for what is not covered, off a terminal),
    /// `coverage --json` and `wait --coverage`.
    @Test func monkeyctlShowsCoverage() throws {
        let state = TemporaryDirectory()
        try Self.makeCorpus("tiny", ["x.txt": "abba", "y.txt": "aab"], in: state.path)
        let daemon = try DaemonProcess(stateDirectory: state.path)
        let socket = ["--socket", daemon.socketPath]
        let started = try MonkeyctlProcess.run(
            socket + [
                "start", "c", "--corpus", "tiny", "--chunk", "2", "--alphabet", "ab", "--monkeys", "2",
                "--interval", "1h",
            ])
        #expect(started.status == 0, "\(started)")
        let status = try MonkeyctlProcess.run(socket + ["status", "c"])
        #expect(status.status == 0 && status.output.contains("corpus tiny, chunk 2: "), "\(status)")
        #expect(!status.output.contains("no target"))
        let table = try MonkeyctlProcess.run(socket + ["coverage", "c"])
        #expect(table.status == 0 && table.lines.count == 3, "\(table)")
        #expect(table.lines.first?.hasPrefix("work") == true && table.lines[1].hasPrefix("x "), "\(table)")
        #expect(table.lines[1].hasSuffix("]") && table.lines[1].contains("["), "\(table)")
        let segments = try Self.segments(daemon, "c", work: "x")
        let expected = String(
            zip(segments.text, segments.covered).map { character, isCovered in isCovered ? character : "_" })
        let text = try MonkeyctlProcess.run(socket + ["coverage", "c", "--work", "x"])
        #expect(text.status == 0 && text.lines == [expected], "\(text)")
        let json = try MonkeyctlProcess.run(socket + ["--json", "coverage", "c"])
        #expect(
            json.status == 0 && json.lines.count == 2 && json.lines[0].contains("\"name\":\"x\",\"chars\":4,"),
            "\(json)")
        let unknown = try MonkeyctlProcess.run(socket + ["coverage", "c", "--work", "nope"])
        #expect(unknown.status == 1, "\(unknown)")
        let warned = try MonkeyctlProcess.run(socket + ["wait", "c", "--coverage", "100", "--timeout", "1ms"])
        #expect(warned.status == 5 && warned.error.contains("may never end") == false, "\(warned)")
        _ = try daemon.request("START plain interval=1h")
        let plain = try MonkeyctlProcess.run(socket + ["wait", "plain", "--coverage", "5", "--timeout", "1ms"])
        #expect(plain.error.contains("is not a corpus session"), "\(plain)")
        _ = try daemon.request("SET c interval=1ms")
        let waited = try MonkeyctlProcess.run(socket + ["wait", "c", "--coverage", "100", "--timeout", "30s"])
        #expect(waited.status == 0, "\(waited)")
        let whole = try MonkeyctlProcess.run(socket + ["coverage", "c", "--work", "y"])
        #expect(whole.lines == ["aab"], "\(whole)")
    }

    /// CORPORA and `monkeyctl corpora`: the directories of corpus_dir, in
    /// byte order, their works and characters for an alphabet, or why one
    /// is no corpus; a file beside them is none.
    @Test func corporaListsWhatCorpusDirHolds() throws {
        let state = TemporaryDirectory()
        let corpora = TemporaryDirectory()
        try Self.makeCorpus("plays", ["a.txt": "To be, or", "b.txt": "not"], in: corpora.path + "/x")
        try Self.makeCorpus("broken", ["a.txt": "123"], in: corpora.path + "/x")
        try Data("x".utf8).write(to: URL(fileURLWithPath: corpora.path + "/x/corpora/README"))
        let daemon = try DaemonProcess(
            configuration: "corpus_dir = \(corpora.path)/x/corpora\n", stateDirectory: state.path)
        let lines = try daemon.request("CORPORA")
        #expect(lines.count == 3 && lines.last == "OK", "\(lines)")
        let broken = try fields(lines[0])
        #expect(broken["name"] == "broken" && broken["error"]?.contains("a.txt") == true, "\(lines)")
        let plays = try fields(lines[1])
        #expect(plays["name"] == "plays" && plays["works"] == "2" && plays["characters"] == "9", "\(lines)")
        let spaced = try fields(daemon.request("CORPORA alphabet=\"abcdefghijklmnopqrstuvwxyz \"")[1])
        #expect(spaced["characters"] == "11", "\(spaced)")
        let listed = try MonkeyctlProcess.run(["--socket", daemon.socketPath, "corpora"])
        #expect(listed.status == 0 && listed.lines.count == 3, "\(listed)")
        #expect(listed.lines[2].hasPrefix("plays") && listed.lines[2].contains(" 9"), "\(listed)")
        #expect(listed.lines[1].contains("not a corpus"), "\(listed)")
        // Started from it.
        #expect(try daemon.request("START s corpus=plays interval=1h").last?.hasPrefix("OK") == true)
    }

    /// `monkeyctl odds --corpus`, without a daemon: a directory given with a
    /// `/`, or a name in the corpus_dir of the user's configuration.
    @Test func oddsOfACorpus() throws {
        let home = TemporaryDirectory()
        try Self.makeCorpus("tiny", ["x.txt": "abba", "y.txt": "aab"], in: home.path)
        let direct = try MonkeyctlProcess.run(
            ["odds", "--corpus", home.path + "/corpora/tiny", "--chunk", "2", "--alphabet", "ab", "--coverage", "50"])
        #expect(direct.status == 0, "\(direct)")
        #expect(
            direct.lines.count == 1
                && direct.lines[0].hasPrefix(
                    "tiny: 2 works, 7 characters; 4 distinct chunks of 2; 50 % expected after "),
            "\(direct)")
        try FileManager.default.createDirectory(
            atPath: home.path + "/config/monkeyd", withIntermediateDirectories: true)
        try Data("corpus_dir = \(home.path)/corpora\n".utf8).write(
            to: URL(fileURLWithPath: home.path + "/config/monkeyd/monkeyd.conf"))
        let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config"]
        let json = try MonkeyctlProcess.run(
            [
                "--json", "odds", "--corpus", home.path + "/corpora/tiny", "--chunk", "2", "--alphabet", "ab",
                "--monkeys", "3", "--interval", "1s",
            ])
        #expect(json.status == 0 && json.lines.count == 1, "\(json)")
        let object = json.lines.first ?? ""
        #expect(object.contains("\"distinct_chunks\":4") && object.contains("\"seconds\":"), "\(json)")
        // By name, in the corpus_dir of the user's configuration (root's is /etc/monkeyd's).
        let named = try MonkeyctlProcess.run(
            ["odds", "--corpus", "tiny", "--chunk", "2", "--alphabet", "ab", "--coverage", "50"],
            environment: environment)
        if geteuid() != 0 {
            #expect(named.status == 0 && named.lines == direct.lines, "\(named)")
        } else {
            #expect(named.error.contains("/var/lib/monkeyd/corpora/tiny") || named.status == 0, "\(named)")
        }
        let missing = try MonkeyctlProcess.run(["odds", "--corpus", "nothing"], environment: environment)
        #expect(missing.status == 1 && missing.error.contains("no-such-corpus"), "\(missing)")
        let both = try MonkeyctlProcess.run(["odds", "--corpus", "tiny", "--target", "ab"], environment: environment)
        #expect(both.status == 2, "\(both)")
    }

    /// A peer that may not change state is denied before anything is read
    /// for it: not told whether a corpus exists or what is wrong with it.
    @Test func aStrangersCorpusRequestIsDeniedUnread() throws {
        guard geteuid() == 0 else { return }
        let state = TemporaryDirectory()
        try Self.makeCorpus("latin1", ["a.txt": "ok"], in: state.path)
        try Data([0x61, 0xE9]).write(to: URL(fileURLWithPath: state.path + "/corpora/latin1/a.txt"))
        let daemon = try DaemonProcess(configuration: "socket_mode = 0666\n", stateDirectory: state.path)
        let answers = try runClient(
            ["--reuid=65533", "--regid=65533", "--clear-groups"],
            ["START s corpus=latin1", "START s corpus=nothing", "CORPORA"], daemon.socketPath)
        #expect(answers.count == 4, "\(answers)")
        #expect(answers.prefix(2).allSatisfy { $0.hasPrefix("ERR denied ") }, "\(answers)")
        #expect(answers.last == "OK" && answers[2].contains("latin1"), "reading the corpora is for everyone")
    }
}
