import MonkeyCore
import MonkeyShell

/// Corpus sessions in the shell: a START or SET that names a corpus has
/// its files read here, on the owner queue, before the engine (which reads
/// no file) sees the request. Reading Shakespeare and building its index
/// (in the engine) takes about half a second, during which the queue
/// serves nothing else.
extension Daemon {
    /// The request with the files of the corpus it names read
    /// (`CorpusSetting.loaded`); any other request as it is.
    func readingCorpus(of request: Request) throws(ProtocolError) -> Request {
        switch request {
        case .start(let name, var change):
            guard case .named(let corpus)? = change.corpus else { return request }
            change.corpus = .loaded(try readCorpus(corpus))
            return .start(name, change)
        case .set(let name, var change):
            guard case .named(let corpus)? = change.corpus else { return request }
            change.corpus = .loaded(try readCorpus(corpus))
            return .set(name, change)
        case .corpora(var query):
            query.found = readCorpora()
            return .corpora(query)
        default:
            return request
        }
    }

    /// Every directory of `corpus_dir` with a valid name, in byte order,
    /// read as a corpus; none when `corpus_dir` does not exist.
    func readCorpora() -> [CorporaQuery.Found] {
        let directory = configuration.corpusDirectory(stateDirectory: options.stateDirectory)
        guard let names = try? Syscalls.directoryEntries(directory) else { return [] }
        var found: [CorporaQuery.Found] = []
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where SessionName(name) != nil {
            do {
                found.append(.source(try Self.readCorpus(name, in: directory, limits: engine.limits.corpus)))
            } catch {
                // A file, not a directory: no corpus.
                if case .noSuchCorpus = error { continue }
                found.append(.refused(name: name, error))
            }
        }
        return found
    }

    /// The works of corpus `name` in `corpus_dir`.
    func readCorpus(_ name: String) throws(ProtocolError) -> CorpusSource {
        do {
            return try Self.readCorpus(
                name, in: configuration.corpusDirectory(stateDirectory: options.stateDirectory),
                limits: engine.limits.corpus)
        } catch {
            throw error.protocolError
        }
    }

    /// The works of corpus `name` in `directory`, checked.
    static func readCorpus(_ name: String, in directory: String, limits: CorpusLimits) throws(CorpusError)
        -> CorpusSource
    {
        let files: [CorpusDirectory.File]
        do {
            files = try CorpusDirectory.read(
                directory + "/" + name, isWork: CorpusSource.isWorkFile, byteLimit: limits.maximumFileBytes)
        } catch {
            switch error {
            case .missing: throw .noSuchCorpus(name: name)
            case .linkOutside(let file): throw .linkOutside(file: file)
            case .changedWhileRead(let file): throw .changedWhileRead(file: file)
            case .unreadable(let file, let reason): throw .unreadable(file: file, reason: reason)
            case .tooLarge(let limit): throw .filesTooLarge(limit: limit)
            }
        }
        return try CorpusSource(name: name, files: files.map { ($0.name, $0.bytes) }, limits: limits)
    }
}
