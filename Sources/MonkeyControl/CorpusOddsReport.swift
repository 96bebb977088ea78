import MonkeyCore
import MonkeyShell

/// `monkeyctl odds --corpus`: a corpus read here, without a daemon, and
/// what uniform typing is expected to cover of it (the daemon's own
/// `ExpectedCoverage`): its size, its distinct chunks, and the windows (and
/// with monkeys and an interval, the time) at which the expected coverage
/// reaches the percent asked.
enum CorpusOddsReport {
    /// The directory of `corpus`: itself when it holds a `/`, else its name
    /// in the `corpus_dir` of the configuration this user's daemon would read.
    static func directory(of corpus: String, environment: [String: String]) -> String {
        if corpus.contains("/") { return corpus }
        let paths = DefaultPaths.resolve(uid: Syscalls.effectiveUserID()) { environment[$0] }
        var configuration = Configuration()
        if let bytes = try? Syscalls.readWholeFile(paths.configuration, limit: 16 << 20),
            let text = String(validating: bytes, as: UTF8.self), let parsed = try? Configuration.parse(text)
        {
            configuration = parsed
        }
        return configuration.corpusDirectory(stateDirectory: paths.stateDirectory) + "/" + corpus
    }

    /// Reads the corpus at `path` and normalises it for the question's alphabet.
    static func read(_ path: String, _ question: CorpusOddsQuestion) throws(CorpusError) -> Corpus {
        let limits = CorpusLimits()
        let name = String(path.split(separator: "/").last ?? Substring(path))
        let files: [CorpusDirectory.File]
        do {
            files = try CorpusDirectory.read(path, isWork: CorpusSource.isWorkFile, byteLimit: limits.maximumFileBytes)
        } catch {
            switch error {
            case .missing: throw .noSuchCorpus(name: path)
            case .linkOutside(let file): throw .linkOutside(file: file)
            case .changedWhileRead(let file): throw .changedWhileRead(file: file)
            case .unreadable(let file, let reason): throw .unreadable(file: file, reason: reason)
            case .tooLarge(let limit): throw .filesTooLarge(limit: limit)
            }
        }
        let source = try CorpusSource(name: name, files: files.map { ($0.name, $0.bytes) }, limits: limits)
        return try Corpus(source: source, alphabet: question.alphabet, limits: limits)
    }

    /// The figures, as `(key, value)` pairs in the order they are printed:
    /// the protocol's words, values as STATUS writes them.
    static func figures(_ question: CorpusOddsQuestion, _ corpus: Corpus) -> [(key: String, value: String)] {
        let index = ChunkIndex(corpus: corpus, chunkLength: question.chunk)
        let expected = ExpectedCoverage(index: index)
        var figures: [(key: String, value: String)] = [
            ("corpus", corpus.name), ("works", String(corpus.works.count)),
            ("corpus_chars", String(corpus.characterCount)), ("chunk", String(question.chunk)),
            ("alphabet", question.alphabet.text), ("distinct_chunks", String(index.distinctChunks)),
            ("coverage", question.percent),
        ]
        guard let windows = expected.windows(toReach: question.fraction) else {
            figures.append(("windows", "never"))
            return figures
        }
        figures.append(("windows", WideNumber(windows).formatted))
        if let monkeys = question.monkeys, let interval = question.interval {
            let perEntry = max(0, monkeys - question.chunk + 1)
            figures.append(("monkeys", String(monkeys)))
            figures.append(("interval", interval.description))
            if perEntry == 0 {
                figures.append(("seconds", "never"))
            } else {
                let seconds = windows / Double(perEntry) * Double(interval.nanoseconds) / 1e9
                figures.append(("seconds", WideNumber(seconds).formatted))
            }
        }
        return figures
    }

    /// For people: `shakespeare: 42 works, 3,811,927 characters; 2,792,031
    /// distinct chunks of 9; 99.99 % expected after 5.636e+12 windows`,
    /// then with monkeys and an interval `(about ... with 9 monkeys every 1ms)`.
    static func human(_ figures: [(key: String, value: String)]) -> String {
        let value = { (key: String) in figures.first { $0.key == key }?.value ?? "?" }
        var text = "\(Visible.escaped(value("corpus"))): \(HumanNumbers.count(text: value("works"))) works, "
        text += "\(HumanNumbers.count(text: value("corpus_chars"))) characters; "
        text += "\(HumanNumbers.count(text: value("distinct_chunks"))) distinct chunks of \(value("chunk")); "
        let windows = value("windows")
        guard windows != "never" else { return text + "\(value("coverage")) % is never expected" }
        text += "\(value("coverage")) % expected after \(windows) windows"
        if let seconds = figures.first(where: { $0.key == "seconds" })?.value {
            let wait =
                seconds == "never"
                ? "never: entries shorter than the chunk hold no window"
                : "about " + (WideNumber(parsing: seconds).map { HumanNumbers.duration($0, .words) } ?? seconds)
            text += " (\(wait) with \(value("monkeys")) monkeys every \(value("interval")))"
        }
        return text
    }

    /// One JSON object of the figures, numbers as numbers.
    static func json(_ figures: [(key: String, value: String)]) -> String {
        let numeric: Set<String> = ["works", "corpus_chars", "chunk", "distinct_chunks", "monkeys"]
        let members = figures.map { figure -> String in
            let value: String
            if numeric.contains(figure.key) {
                value = figure.value
            } else if ["windows", "seconds", "coverage"].contains(figure.key), figure.value != "never" {
                value = OddsReport.number(figure.value, WideNumber(parsing: figure.value))
            } else {
                value = JSONLines.string(figure.value)
            }
            return JSONLines.string(figure.key) + ":" + value
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
