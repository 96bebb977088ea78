/// A corpus's files read, normalised and indexed away from the owner of
/// state: START or SET `corpus=NAME` costs about a second for the works of
/// Shakespeare, which the daemon's queue would otherwise spend serving
/// nothing. The engine takes the run as it is when the session's settings
/// after the change still have its alphabet and chunk (`fits`), and
/// builds again from its copy otherwise.
public struct BuiltCorpus: Sendable, Equatable {
    public let run: CorpusRun

    public init(_ run: CorpusRun) {
        self.run = run
    }

    /// Whether the run is the one a session with `settings` covers with.
    func fits(_ settings: SessionSettings) -> Bool {
        run.corpus.alphabet.alphabet == settings.alphabet && run.index.chunkLength == settings.chunk
    }

    /// The same experiment: the same works normalised alike, at the same chunk.
    public static func == (left: BuiltCorpus, right: BuiltCorpus) -> Bool {
        left.run.digest == right.run.digest && left.run.source == right.run.source
    }
}

/// What must be built before the engine takes a request that names a
/// corpus: corpus `corpus`'s files read, normalised for `alphabet` and
/// indexed at `chunk`, the settings the request would leave its session
/// with as things stand.
public struct CorpusBuild: Sendable, Equatable {
    public let corpus: String
    public let alphabet: Alphabet
    public let chunk: Int
}

extension Engine {
    /// The build a START or SET naming a corpus by name needs; nil for any
    /// other request, and for a SET of a session that does not exist (the
    /// engine refuses it without reading a file).
    public func corpusBuild(for request: Request) -> CorpusBuild? {
        let name: SessionName
        let change: SettingsChange
        switch request {
        case .start(let session, let settingsChange):
            (name, change) = (session, settingsChange)
        case .set(let session, let settingsChange):
            guard sessions[session] != nil else { return nil }
            (name, change) = (session, settingsChange)
        default:
            return nil
        }
        guard case .named(let corpus)? = change.corpus else { return nil }
        let settings = sessions[name]?.session.settings ?? .defaults
        return CorpusBuild(
            corpus: corpus, alphabet: change.alphabet ?? settings.alphabet, chunk: change.chunk ?? settings.chunk)
    }
}

extension Request {
    /// The START or SET with its corpus built; any other request as it is.
    public func with(_ built: BuiltCorpus) -> Request {
        switch self {
        case .start(let name, var change):
            change.corpus = .built(built)
            return .start(name, change)
        case .set(let name, var change):
            change.corpus = .built(built)
            return .set(name, change)
        default:
            return self
        }
    }
}
