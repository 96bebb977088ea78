/// The coverage of one experiment run on several hosts, united from the
/// bitmap lines each host's `COVERAGE session format=bitmap` gives: a
/// character is covered if any host covered it. Needs no corpus, only
/// the lines; each host must run the same experiment (`Identity`).
public struct CoverageUnion: Sendable {
    /// What makes two hosts' coverage the same experiment's.
    public struct Identity: Sendable, Equatable {
        /// The corpus digest (SHA-256 of its works, `CorpusDigest`).
        public var digest: String
        public var chunk: String
        /// The alphabet, when the header carries it.
        public var alphabet: String?
        public var characters: Int

        public init(digest: String, chunk: String, alphabet: String?, characters: Int) {
            self.digest = digest
            self.chunk = chunk
            self.alphabet = alphabet
            self.characters = characters
        }
    }

    /// One `bits` line: a work, the offset of its first character, how many, the bits.
    public struct Line: Sendable, Equatable {
        public var work: String
        public var offset: Int
        public var count: Int
        public var base64: String

        public init(work: String, offset: Int, count: Int, base64: String) {
            self.work = work
            self.offset = offset
            self.count = count
            self.base64 = base64
        }
    }

    /// Why a host's coverage cannot be united with the others'.
    public enum Mismatch: Error, Sendable, Equatable {
        /// `field` differs from the first host's: its value here and there.
        case differs(field: String, value: String, first: String)
        /// A line of the host's is not a bitmap line of this experiment.
        case badLine(String)
    }

    /// One work's figures in the union.
    public struct WorkFigures: Sendable, Equatable {
        public var name: String
        public var characters: Int
        public var covered: Int
    }

    /// The first host's identity: every other host's must equal it.
    public private(set) var identity: Identity?
    private var names: [String] = []
    private var bits: [String: [Bool]] = [:]
    private var hosts = 0

    public init() {}

    /// Unites one host's answer. The first host's lines give the works and
    /// their lengths (in order); each other host's must fit them. Changes
    /// nothing when it throws.
    public mutating func add(_ host: Identity, lines: [Line]) throws(Mismatch) {
        var next = self
        try next.unite(host, lines)
        self = next
    }

    private mutating func unite(_ host: Identity, _ lines: [Line]) throws(Mismatch) {
        // The digest last: it may cover the chunk and the alphabet too,
        // which say more about how two hosts differ.
        if let identity {
            try Self.check("chunk", host.chunk, identity.chunk)
            if let alphabet = host.alphabet, let first = identity.alphabet {
                try Self.check("alphabet", alphabet, first)
            }
            try Self.check("characters", String(host.characters), String(identity.characters))
            try Self.check("digest", host.digest, identity.digest)
        } else {
            identity = host
        }
        let isFirst = hosts == 0
        for line in lines {
            guard line.offset >= 0, line.count > 0, let bytes = Base64.decode(line.base64),
                bytes.count == (line.count + 7) / 8
            else { throw .badLine("\(line.work) offset \(line.offset)") }
            if isFirst && bits[line.work] == nil {
                names.append(line.work)
                bits[line.work] = []
            }
            guard var work = bits[line.work] else { throw .badLine("no work \(line.work) on the first host") }
            if isFirst && work.count < line.offset + line.count {
                work += Array(repeating: false, count: line.offset + line.count - work.count)
            }
            guard line.offset + line.count <= work.count else {
                throw .badLine("\(line.work) has no character \(line.offset + line.count - 1)")
            }
            for bit in 0..<line.count where bytes[bit >> 3] >> UInt8(bit & 7) & 1 != 0 {
                work[line.offset + bit] = true
            }
            bits[line.work] = work
        }
        if isFirst && names.reduce(0, { $0 + (bits[$1]?.count ?? 0) }) != host.characters {
            throw .badLine("the lines hold other than \(host.characters) characters")
        }
        hosts += 1
    }

    private static func check(_ field: String, _ value: String, _ first: String) throws(Mismatch) {
        guard value == first else { throw .differs(field: field, value: value, first: first) }
    }

    /// Each work's figures, in the first host's order.
    public var works: [WorkFigures] {
        names.map { name in
            let work = bits[name] ?? []
            return WorkFigures(name: name, characters: work.count, covered: work.count { $0 })
        }
    }

    /// Characters covered on any host, of all.
    public var covered: Int { works.reduce(0) { $0 + $1.covered } }
    public var characters: Int { works.reduce(0) { $0 + $1.characters } }
}
