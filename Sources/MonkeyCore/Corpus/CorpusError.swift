/// Why a corpus cannot be used: read, validated, normalised or indexed.
/// Each case names the file or the limit, and `message` is the sentence
/// the protocol's `ERR` line carries.
public enum CorpusError: Error, Sendable, Equatable {
    /// The directory `corpus_dir/NAME` does not exist (or is not a directory).
    case noSuchCorpus(name: String)
    /// The corpus directory holds no `*.txt` file that is a work.
    case noWorks(name: String)
    /// A `*.txt` file whose name without `.txt` is not a valid work name.
    case badWorkName(file: String)
    /// A file that is not UTF-8: the offset of the first byte that is not.
    case notUTF8(file: String, offset: Int)
    /// A work with no character left after normalisation for the alphabet.
    case emptyWork(file: String)
    /// The normalised corpus is larger than `max_corpus_bytes`.
    case tooLarge(limit: Int)
    /// The files together are larger than the raw limit (see `CorpusLimits`).
    case filesTooLarge(limit: Int)
    /// A symbolic link whose target lies outside the corpus directory.
    case linkOutside(file: String)
    /// The file's size, time stamps or identity changed while it was read.
    case changedWhileRead(file: String)
    /// The directory or a file could not be read: the system's reason.
    case unreadable(file: String, reason: String)
    /// An alphabet of more characters than a corpus session can type with.
    case alphabetTooLarge(count: Int, limit: Int)

    /// Which protocol error a case is.
    public enum Kind: Sendable, Equatable {
        /// `ERR no-such-corpus`.
        case noSuchCorpus
        /// `ERR bad-corpus`.
        case badCorpus
        /// `ERR bad-argument`: the session's settings, not the corpus.
        case badArgument
    }

    public var kind: Kind {
        switch self {
        case .noSuchCorpus: .noSuchCorpus
        case .alphabetTooLarge: .badArgument
        case .noWorks, .badWorkName, .notUTF8, .emptyWork, .tooLarge, .filesTooLarge, .linkOutside,
            .changedWhileRead, .unreadable:
            .badCorpus
        }
    }

    /// One line for people, naming the file or the limit.
    public var message: String {
        switch self {
        case .noSuchCorpus(let name):
            "no corpus named \(name): no such directory in corpus_dir"
        case .noWorks(let name):
            "corpus \(name) has no works: no *.txt file in its directory"
        case .badWorkName(let file):
            "\(file): \(Self.workName(of: file)) is not a valid work name "
                + "(1 to 64 of A-Z a-z 0-9 _ . -, not starting with . or -)"
        case .notUTF8(let file, let offset):
            "\(file) is not UTF-8 (at byte \(offset))"
        case .emptyWork(let file):
            "\(file) has no character of the alphabet: the work is empty after normalisation"
        case .tooLarge(let limit):
            "the normalised corpus is larger than max_corpus_bytes (\(limit) bytes)"
        case .filesTooLarge(let limit):
            "the corpus's files are larger than 4 × max_corpus_bytes (\(limit) bytes)"
        case .linkOutside(let file):
            "\(file) is a symbolic link that leads out of the corpus directory"
        case .changedWhileRead(let file):
            "\(file) changed while it was read; try again"
        case .unreadable(let file, let reason):
            "cannot read \(file): \(reason)"
        case .alphabetTooLarge(let count, let limit):
            "a corpus session's alphabet has at most \(limit) characters, not \(count)"
        }
    }

    /// The work's name a file name gives: the name without `.txt`.
    static func workName(of file: String) -> String {
        file.hasSuffix(".txt") ? String(file.dropLast(4)) : file
    }
}
