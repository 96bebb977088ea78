import MonkeyCore
import MonkeyShell

/// Corpus sessions in the shell: a START or SET that names a corpus has
/// its files read and indexed by the `CorpusBuilder`, off the queue, and
/// is answered when they are (the connection's lines after it wait); the
/// engine, which reads no file, then takes the request with its corpus
/// built. CORPORA has the corpora read here, on the queue.
extension Daemon {
    /// Hands the build to the `CorpusBuilder`; the request is answered
    /// when it is done (`corpusBuilt`).
    func buildCorpus(_ build: CorpusBuild, for request: Request, on connection: Connection) {
        connection.phase = .buildingCorpus(request)
        let token = connection.token
        corpusBuilder.build(
            build, in: configuration.corpusDirectory(stateDirectory: options.stateDirectory),
            limits: engine.limits.corpus
        ) { [weak self] result in
            guard let daemon = self else { return }
            daemon.queue.async { daemon.corpusBuilt(result, for: token) }
        }
    }

    /// A build is done: its request is answered (with the corpus built, or
    /// with the refusal), in a pass of its own, unless its client is gone.
    func corpusBuilt(_ result: Result<BuiltCorpus, ProtocolError>, for token: UInt64) {
        runPass {
            guard let connection = connections[token], case .buildingCorpus(let request) = connection.phase
            else { return }
            connection.phase = .requests
            pass.touch(connection)
            switch result {
            case .success(let built):
                answer(request.with(built), on: connection)
            case .failure(let error):
                counters.requests.note(request.verb, error.code)
                connection.appendStatus(.error(error))
            }
        }
    }

    /// CORPORA with the corpora read; any other request as it is. (A
    /// START or SET naming a corpus is built by `buildCorpus`; a SET of a
    /// session that does not exist is refused without reading a file.)
    func readingCorpora(of request: Request) -> Request {
        guard case .corpora(var query) = request else { return request }
        query.found = readCorpora()
        return .corpora(query)
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
