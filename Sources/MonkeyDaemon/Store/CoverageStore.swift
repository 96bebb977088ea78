import Dispatch
import MonkeyCore
import MonkeyShell

/// Corpus sessions on disk, in `<state-dir>/coverage`: each one's own copy
/// of its works (`NAME.corpus`, `CorpusSourceFile`) and its coverage
/// (`NAME.EPOCH.coverage`, `CoverageFile`: the epoch of a CLEAR makes an
/// older file no longer the session's). Owned by the daemon's queue; the
/// files are written on the storage thread's queue after the entries of
/// the same sync, so that coverage on disk never holds more than the
/// entries there (`save`), each replaced whole through a temporary file
/// and a rename.
struct CoverageStore {
    let directory: String
    /// What the files hold, by session: only what changed is written again.
    private var saved: [SessionName: Mark] = [:]

    struct Mark: Equatable {
        let epoch: UInt64
        let digest: CorpusDigest
        let windows: UInt64
        let covered: Int
    }

    init(directory: String) {
        self.directory = directory
    }

    func sourcePath(_ name: SessionName) -> String { "\(directory)/\(name.text).corpus" }
    func coveragePath(_ name: SessionName, epoch: UInt64) -> String { "\(directory)/\(name.text).\(epoch).coverage" }

    /// One corpus session as the engine has it now.
    struct Saving: Sendable {
        let name: SessionName
        let epoch: UInt64
        let run: CorpusRun
        let writesSource: Bool
    }

    /// Writes, on `queue` (the storage thread's), the coverage of every
    /// corpus session that changed since the last save, and the copy of
    /// the works of each whose corpus is new; removes the files of
    /// sessions that are no longer corpus sessions.
    mutating func save(
        _ runs: [(name: SessionName, epoch: UInt64, run: CorpusRun)], on queue: DispatchQueue,
        report: @escaping @Sendable (String) -> Void
    ) {
        var savings: [Saving] = []
        var current = Set<SessionName>()
        for (name, epoch, run) in runs {
            current.insert(name)
            let mark = Mark(
                epoch: epoch, digest: run.digest, windows: run.coverage.windows, covered: run.coverage.coveredCount)
            let before = saved[name]
            guard before != mark else { continue }
            saved[name] = mark
            savings.append(Saving(name: name, epoch: epoch, run: run, writesSource: before?.digest != run.digest))
        }
        let gone = saved.keys.filter { !current.contains($0) }
        for name in gone { saved[name] = nil }
        guard !savings.isEmpty || !gone.isEmpty else { return }
        let directory = self.directory
        queue.async { [savings] in
            Self.write(savings, removing: gone, in: directory, report: report)
        }
    }

    /// The files of `savings` written, those of `gone` removed (storage thread).
    private static func write(
        _ savings: [Saving], removing gone: [SessionName], in directory: String,
        report: @Sendable (String) -> Void
    ) {
        let store = CoverageStore(directory: directory)
        do {
            try Syscalls.makeDirectories(directory, mode: 0o750)
        } catch {
            report("cannot create \(directory) for the coverage of corpus sessions: \(error.reason)")
            return
        }
        for saving in savings {
            do throws(StorageError) {
                if saving.writesSource {
                    try AppendOnlyFile.replaceFile(
                        at: store.sourcePath(saving.name), with: CorpusSourceFile.encode(saving.run.source),
                        what: "the corpus copy of session \(saving.name)")
                }
                try AppendOnlyFile.replaceFile(
                    at: store.coveragePath(saving.name, epoch: saving.epoch),
                    with: CoverageFile.encode(saving.run.coverage, digest: saving.run.digest),
                    what: "the coverage of session \(saving.name)")
            } catch {
                report(error.message)
            }
            store.removeCoverage(of: saving.name, except: saving.epoch)
        }
        for name in gone {
            _ = try? Syscalls.removeFile(store.sourcePath(name))
            store.removeCoverage(of: name, except: nil)
        }
        if let fd = try? Syscalls.open(directory, .directory) {
            try? Syscalls.synchronize(fd)
            Syscalls.close(fd)
        }
    }

    /// Removes the session's coverage files of other epochs.
    private func removeCoverage(of name: SessionName, except epoch: UInt64?) {
        guard let files = try? Syscalls.directoryEntries(directory) else { return }
        let prefix = name.text + "."
        for file in files where file.hasPrefix(prefix) && file.hasSuffix(".coverage") {
            let middle = file.dropFirst(prefix.count).dropLast(".coverage".count)
            guard let number = UInt64(middle), number != epoch else { continue }
            _ = try? Syscalls.removeFile(directory + "/" + file)
        }
    }

    /// A restored corpus session's run: its copy of the works (or, without
    /// one, the corpus as `corpus_dir` holds it now), normalised and
    /// indexed, with the coverage of its epoch. What cannot be read is set
    /// aside and said in `report`; coverage then restarts. Nil when the
    /// works cannot be had at all.
    mutating func load(
        _ session: Session, corpusDirectory: String, limits: CorpusLimits, report: (LogPriority, String) -> Void
    ) -> CorpusRun? {
        let name = session.name
        let settings = session.settings
        var source: CorpusSource?
        let path = sourcePath(name)
        do {
            if let bytes = try Syscalls.readWholeFile(path, limit: limits.maximumFileBytes + (1 << 20)) {
                source = try CorpusSourceFile.decode(bytes, limits: limits)
            }
        } catch let error as CorpusSourceFile.Damage {
            setAside(path, "the corpus copy of session \(name) is damaged (\(error.message))", report)
        } catch {
            report(.warning, "cannot read the corpus copy of session \(name): \(error)")
        }
        // A copy of another corpus (a session of the same name that was
        // deleted, its files not yet removed) is not this session's.
        if let copy = source, copy.name != settings.corpus { source = nil }
        if source == nil {
            do {
                source = try Daemon.readCorpus(settings.corpus, in: corpusDirectory, limits: limits)
                report(.notice, "session \(name) covers corpus \(settings.corpus) as \(corpusDirectory) holds it now")
            } catch {
                report(
                    .warning,
                    "session \(name) has no copy of corpus \(settings.corpus) and cannot read it: \(error.message); "
                        + "SET \(name) corpus=NAME to cover one again")
                return nil
            }
        }
        guard let source else { return nil }
        let run: CorpusRun
        do {
            run = try CorpusRun(source: source, alphabet: settings.alphabet, chunk: settings.chunk, limits: limits)
        } catch {
            report(.warning, "session \(name) cannot cover corpus \(settings.corpus): \(error.message)")
            return nil
        }
        let coverage = coveragePath(name, epoch: session.epoch)
        do {
            guard let bytes = try Syscalls.readWholeFile(coverage, limit: run.corpus.characterCount / 4 + (1 << 20))
            else { return run }
            let restored = try CoverageFile.decode(
                bytes, corpus: run.corpus, chunkLength: run.index.chunkLength, digest: run.digest)
            saved[name] = Mark(
                epoch: session.epoch, digest: run.digest, windows: restored.windows, covered: restored.coveredCount)
            return run.restoring(restored)
        } catch let error as CoverageFile.Damage {
            setAside(
                coverage, "the coverage of session \(name) is damaged (\(error.message)); its coverage restarts", report
            )
        } catch {
            report(.warning, "cannot read the coverage of session \(name): \(error); its coverage restarts")
        }
        return run
    }

    private func setAside(_ path: String, _ message: String, _ report: (LogPriority, String) -> Void) {
        do {
            try AppendOnlyFile.setAside(path, suffix: ".damaged")
            report(.warning, "\(message); set aside as \(path).damaged")
        } catch {
            report(.warning, "\(message); cannot set it aside: \(error.reason)")
        }
    }
}
