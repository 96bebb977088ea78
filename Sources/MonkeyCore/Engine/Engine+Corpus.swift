/// Corpus sessions in the engine: the run a change leaves a session with,
/// coverage as entries are typed, STATUS's figures and COVERAGE. The
/// corpus's files come in read (`CorpusSetting.loaded`): the daemon reads
/// them before it hands the request over.
extension Engine {
    /// The corpus run a session has after `change`, its settings then
    /// being `settings`: none for a plain session; a new one (nothing
    /// covered) for a corpus set or set again, or a new alphabet or chunk;
    /// else the one it had. `isFresh`: coverage starts afresh.
    func corpusRun(
        after change: SettingsChange, settings: SessionSettings, previous: CorpusRun?
    ) throws(ProtocolError) -> (run: CorpusRun?, isFresh: Bool) {
        guard settings.isCorpusSession else { return (nil, previous != nil) }
        let source: CorpusSource
        switch change.corpus {
        case .loaded(let loaded)?:
            source = loaded
        case .built(let built)?:
            // Built for the settings the request would leave the session
            // with; a change that came first may have moved them.
            if built.fits(settings) { return (built.run, true) }
            source = built.run.source
        case .named(let name)?:
            throw ProtocolError(.internal, "the files of corpus \(name) were not read before the request was handled")
        case .plain?, nil:
            guard let previous else {
                throw ProtocolError(.internal, "the session has no copy of corpus \(settings.corpus)")
            }
            if previous.corpus.alphabet.alphabet == settings.alphabet && previous.index.chunkLength == settings.chunk {
                return (previous, false)
            }
            source = previous.source
        }
        do {
            return (
                try CorpusRun(
                    source: source, alphabet: settings.alphabet, chunk: settings.chunk, limits: limits.corpus),
                true
            )
        } catch {
            throw error.protocolError
        }
    }

    /// Whether a SET changes what a session covers, or whether it covers:
    /// it then replaces the session whole (a run is rebuilt), as a START does.
    static func changesCorpus(_ change: SettingsChange, of settings: SessionSettings) -> Bool {
        change.corpus != nil || change.chunk != nil
            || (settings.isCorpusSession && (change.alphabet != nil || change.target?.isEmpty == false))
    }

    /// The change as events keep it: a corpus by its name, not its files.
    static func announced(_ change: SettingsChange) -> SettingsChange {
        var announced = change
        if let corpus = change.corpus { announced.corpus = corpus.name.isEmpty ? .plain : .named(corpus.name) }
        return announced
    }

    /// The events of one entry's covering, in order: its hit (when it
    /// covered something new), the works it completed, a new whole percent.
    /// Whoever covers entries (this engine's ticks, or the batches of a
    /// pool of typing threads, entry by entry in id order) says them so.
    public static func appendEvents(
        of covering: CorpusRun.Covering, entry: Entry, session name: SessionName, corpus: Corpus,
        to events: inout [Event]
    ) {
        if covering.newlyCovered > 0 {
            events.append(Event(.covering(entry, newlyCovered: covering.newlyCovered), session: name))
        }
        for work in covering.completed {
            events.append(Event(.covered(work: corpus.works[work].name), session: name))
        }
        if let percent = covering.percent { events.append(Event(.coverage(percent: percent), session: name)) }
    }

    /// A corpus session's STATUS figures (in place of the target's).
    static func writeCoverage<Fields: FieldWriter>(of run: borrowing CorpusRun, to fields: inout Fields) {
        let coverage = run.coverage
        fields.write("works", decimal: UInt64(coverage.workCount))
        fields.write("corpus_chars", decimal: UInt64(coverage.characterCount))
        fields.write("covered", decimal: UInt64(coverage.coveredCount))
        fields.write("coverage", ExpectedCoverage.text(ofFraction: coverage.fraction))
        fields.write("works_complete", decimal: UInt64(coverage.completeWorks))
        fields.write("windows", decimal: coverage.windows)
        fields.write("longest_run", decimal: UInt64(coverage.longestRun))
        if let work = coverage.longestRunWork, coverage.longestRun > 0 {
            fields.write("longest_run_work", run.corpus.works[work].name)
        }
        fields.write(
            "expected_coverage",
            ExpectedCoverage.text(ofFraction: run.expected.coverage(afterWindows: Double(coverage.windows))))
    }

    /// COVERAGE: the works' figures, one work's text in segments, or the bitmap lines.
    func coverage(_ name: SessionName, _ query: CoverageQuery) -> Reply {
        guard let scheduled = sessions[name] else {
            return .error(.noSuchSession, "there is no session named \(name)")
        }
        guard let run = scheduled.corpus else {
            return .error(.badArgument, "session \(name) is not a corpus session; COVERAGE needs one")
        }
        let coverage = run.coverage
        let corpus = run.corpus
        var reply = Reply(status: .ok(nil))
        if query.bitmap {
            reply.records.append(
                Record(
                    type: "coverage",
                    fields: [
                        ("session", name.text), ("corpus", corpus.name), ("digest", run.digest.description),
                        ("chunk", String(run.index.chunkLength)), ("characters", String(coverage.characterCount)),
                        ("covered", String(coverage.coveredCount)), ("windows", String(coverage.windows)),
                    ]))
            for line in CoverageBitmap.lines(of: coverage) {
                reply.records.append(
                    Record(
                        type: "bits",
                        fields: [
                            ("work", corpus.works[line.work].name), ("offset", String(line.offset)),
                            ("count", String(line.count)), ("data", line.base64),
                        ]))
            }
            return reply
        }
        guard let workName = query.work else {
            for (index, work) in corpus.works.enumerated() {
                let figures = coverage.figures(ofWork: index)
                reply.records.append(
                    Record(
                        type: "work",
                        fields: [
                            ("name", work.name), ("chars", String(figures.characters)),
                            ("covered", String(figures.covered)),
                            ("coverage", ExpectedCoverage.text(ofFraction: figures.fraction)),
                            ("complete", figures.isComplete ? "yes" : "no"),
                        ]))
            }
            return reply
        }
        guard let index = corpus.work(named: workName) else {
            return .error(.badArgument, "corpus \(corpus.name) of session \(name) has no work named \(workName)")
        }
        let start = corpus.works[index].start
        for segment in coverage.segments(ofWork: index) {
            let range = (start + segment.offset)..<(start + segment.offset + segment.length)
            reply.records.append(
                Record(
                    type: "segment",
                    fields: [
                        ("offset", String(segment.offset)), ("length", String(segment.length)),
                        ("covered", segment.isCovered ? "yes" : "no"), ("text", corpus.text(range)),
                    ]))
        }
        return reply
    }

    /// CORPORA: one line per directory of `corpus_dir`, its works and
    /// characters normalised for the alphabet, or why it is no corpus.
    func corpora(_ query: CorporaQuery) -> Reply {
        guard let found = query.found else {
            return .error(.internal, "the corpora were not read before the request was handled")
        }
        let alphabet = query.alphabet ?? SessionSettings.defaults.alphabet
        var reply = Reply(status: .ok(nil))
        for item in found {
            switch item {
            case .source(let source):
                do {
                    let corpus = try Corpus(source: source, alphabet: alphabet, limits: limits.corpus)
                    reply.records.append(
                        Record(
                            type: "corpus",
                            fields: [
                                ("name", source.name), ("works", String(corpus.works.count)),
                                ("characters", String(corpus.characterCount)), ("bytes", String(source.byteCount)),
                            ]))
                } catch {
                    reply.records.append(
                        Record(type: "corpus", fields: [("name", source.name), ("error", error.message)]))
                }
            case .refused(let name, let error):
                reply.records.append(Record(type: "corpus", fields: [("name", name), ("error", error.message)]))
            }
        }
        return reply
    }

    /// Every corpus session's run, with its epoch: what the store saves at a sync.
    /// Mutating only to reach each session where it lies (`withSession`):
    /// read through `SessionTable.read`, each session's run (552 bytes)
    /// was copied out to be tested, at every sync, even with none.
    public mutating func corpusRuns() -> [(name: SessionName, epoch: UInt64, run: CorpusRun)] {
        var runs: [(name: SessionName, epoch: UInt64, run: CorpusRun)] = []
        for slot in 0..<sessions.slotCount {
            _ = sessions.withSession(inSlot: slot) { scheduled in
                // The settings first: only a corpus session has a run
                // (`corpusRun(after:settings:previous:)`).
                guard scheduled.session.settings.isCorpusSession, let run = scheduled.corpus else { return }
                runs.append((scheduled.session.name, scheduled.session.epoch, run))
            }
        }
        return runs
    }

    /// Whether a session's coverage is at least `percent` % (WAIT `for=coverage=P`).
    static func coverageReaches(_ run: CorpusRun?, percent: Int) -> Bool {
        guard let coverage = run?.coverage else { return false }
        return coverage.coveredCount * 100 >= percent * coverage.characterCount
    }
}

/// What COVERAGE asks for: one work's segments, or the bitmap lines; or
/// (neither) the table of the works.
public struct CoverageQuery: Sendable, Equatable {
    public var work: String?
    public var bitmap: Bool

    public init(work: String? = nil, bitmap: Bool = false) {
        self.work = work
        self.bitmap = bitmap
    }
}
