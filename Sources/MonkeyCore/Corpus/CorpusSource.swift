/// A corpus as read from its directory, before normalisation: its works in
/// byte order of their names, each the UTF-8 text of one file. A session
/// keeps this copy, so that later edits of the files do not change its
/// experiment and a new alphabet or chunk is normalised from the same text.
///
/// A work is a file whose name ends in `.txt`; its name is the file name
/// without `.txt` and must be a valid name (session-name rules: 1 to 64 of
/// `A-Z a-z 0-9 _ . -`, not starting with `.` or `-`). A `.txt` file with
/// any other name is an error, not skipped: a work that silently went
/// missing would change the experiment without a word.
public struct CorpusSource: Sendable, Equatable {
    /// One work: its name, the file it came from and the file's bytes (UTF-8).
    public struct Work: Sendable, Equatable {
        public let name: String
        public let file: String
        public let text: [UInt8]
    }

    /// The corpus's name (its directory in `corpus_dir`).
    public let name: String
    /// In byte order of their names.
    public let works: [Work]

    /// The suffix that makes a file a work.
    public static let workSuffix = ".txt"

    /// Whether a directory entry's name makes it a work (the reader also
    /// requires a regular file).
    public static func isWorkFile(_ fileName: String) -> Bool {
        fileName.utf8.count >= workSuffix.utf8.count && fileName.utf8.suffix(4).elementsEqual(workSuffix.utf8)
    }

    /// Checks the files: names, UTF-8, at least one work, the raw limit.
    /// `files` are (file name, bytes) pairs, in any order; each name must
    /// end in `.txt`.
    public init(name: String, files: [(name: String, bytes: [UInt8])], limits: CorpusLimits) throws(CorpusError) {
        var works: [Work] = []
        var total = 0
        for file in files {
            let workName = CorpusError.workName(of: file.name)
            guard Self.isWorkFile(file.name), SessionName(workName) != nil else {
                throw .badWorkName(file: file.name)
            }
            total += file.bytes.count
            guard total <= limits.maximumFileBytes else { throw .filesTooLarge(limit: limits.maximumFileBytes) }
            works.append(Work(name: workName, file: file.name, text: file.bytes))
        }
        guard !works.isEmpty else { throw .noWorks(name: name) }
        works.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for work in works {
            let invalid = work.text.withUnsafeBufferPointer(UTF8Text.firstInvalidOffset)
            if let offset = invalid { throw .notUTF8(file: work.file, offset: offset) }
        }
        self.name = name
        self.works = works
    }

    /// The bytes of all the files together.
    public var byteCount: Int { works.reduce(0) { $0 + $1.text.count } }
}
