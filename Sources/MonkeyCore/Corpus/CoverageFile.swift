/// The format of a corpus session's coverage on disk: which characters are
/// covered and the windows typed, tied to its corpus, alphabet and chunk
/// length by their digest, and checksummed so that damage is found. As
/// every file of the state directory, eight bytes, then a record: its
/// length and its CRC-32C (of the length and of the contents), 32 bits
/// each, then its contents. Integers are little-endian:
///
///     magic       8 bytes  "MKYCOV", 0, 1 (the format version)
///     length      u32      the contents' bytes
///     crc         u32      CRC-32C of the length's 4 bytes and the contents
///     contents:
///       digest   32 bytes  the `CorpusDigest`
///       characters  u64    C
///       covered     u64    X, the bits set
///       windows     u64    Z
///       encoding    u8     0: bitmap, 1: runs
///       payload            bitmap: ⌈C/64⌉ u64 words, character p is bit
///                          p % 64 of word p / 64, bits past C clear;
///                          runs: LEB128 lengths of alternating runs,
///                          uncovered first (which may be 0), summing to C
///
/// The writer picks the shorter payload: runs while coverage is sparse or
/// nearly complete, the bitmap (C/8 bytes, 476 KB for Shakespeare) in between.
public enum CoverageFile {
    /// "MKYCOV", a zero and the format version.
    public static let magic: [UInt8] = [0x4D, 0x4B, 0x59, 0x43, 0x4F, 0x56, 0x00, 0x01]
    /// The magic, the record's length and checksum.
    static let preambleLength = 16
    /// Then the digest, C, X, Z and the encoding.
    static let fixedLength = 32 + 8 + 8 + 8 + 1
    /// Where the payload starts.
    static let headerLength = preambleLength + fixedLength
    /// Where the encoding byte is.
    static let encodingOffset = headerLength - 1

    /// Why a coverage file cannot be read back: it is set aside and coverage restarts.
    public enum Damage: Error, Sendable, Equatable {
        /// Too short, or not a coverage file of this version.
        case notACoverageFile
        /// The record's length is not the file's: cut short, or more after it.
        case cut
        /// The checksum does not match: the bytes were damaged.
        case badChecksum
        /// Another corpus, alphabet or chunk length (its digest differs).
        case otherCorpus
        /// The checksum matches but the contents contradict themselves.
        case inconsistent(String)

        public var message: String {
            switch self {
            case .notACoverageFile: "not a coverage file"
            case .cut: "it is cut short, or has bytes after its record"
            case .badChecksum: "its checksum does not match its contents"
            case .otherCorpus: "it belongs to another corpus, alphabet or chunk length"
            case .inconsistent(let reason): "its contents are inconsistent: \(reason)"
            }
        }
    }

    /// The file's bytes for `coverage` of the corpus whose digest is `digest`.
    public static func encode(_ coverage: Coverage, digest: CorpusDigest) -> [UInt8] {
        let words = coverage.bitWords
        let runs = runLengths(words, count: coverage.characterCount)
        let useRuns = runs.count < words.count * 8
        var output = magic
        output.append(contentsOf: [UInt8](repeating: 0, count: 8))
        output.append(contentsOf: digest.bytes)
        output.appendFixed64(UInt64(coverage.characterCount))
        output.appendFixed64(UInt64(coverage.coveredCount))
        output.appendFixed64(coverage.windows)
        output.append(useRuns ? 1 : 0)
        if useRuns {
            output.append(contentsOf: runs)
        } else {
            for word in words { output.appendFixed64(word) }
        }
        // After the magic, the rest is one sealed record.
        output.withUnsafeMutableBytes { SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: $0[magic.count...])) }
        return output
    }

    /// The coverage `bytes` hold, for `corpus` at `chunkLength` (whose digest is `digest`).
    public static func decode(
        _ bytes: [UInt8], corpus: Corpus, chunkLength: Int, digest: CorpusDigest
    ) throws(Damage) -> Coverage {
        guard bytes.count >= headerLength, bytes.starts(with: magic) else { throw .notACoverageFile }
        let result = bytes.withUnsafeBytes { raw -> Result<Coverage, Damage> in
            let length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard Int(length) == raw.count - preambleLength else { return .failure(.cut) }
            guard SealedRecord.isIntact(raw, at: magic.count, bodyLength: Int(length)) else {
                return .failure(.badChecksum)
            }
            guard raw[preambleLength..<(preambleLength + 32)].elementsEqual(digest.bytes) else {
                return .failure(.otherCorpus)
            }
            var reader = FieldReader(raw, at: preambleLength + 32)
            guard let characters = reader.fixed64(), let covered = reader.fixed64(), let windows = reader.fixed64(),
                let encoding = reader.byte()
            else { return .failure(.notACoverageFile) }
            guard characters == UInt64(corpus.characterCount) else {
                return .failure(.inconsistent("\(characters) characters, not \(corpus.characterCount)"))
            }
            let payload = UnsafeRawBufferPointer(rebasing: raw[headerLength...])
            let words: [UInt64]
            switch encoding {
            case 0:
                guard payload.count == (corpus.characterCount + 63) / 64 * 8 else {
                    return .failure(.inconsistent("a bitmap of \(payload.count) bytes"))
                }
                words = (0..<(payload.count / 8)).map {
                    UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))
                }
            case 1:
                guard let decoded = bits(ofRuns: payload, count: corpus.characterCount) else {
                    return .failure(.inconsistent("runs that do not add up to the characters"))
                }
                words = decoded
            default:
                return .failure(.inconsistent("encoding \(encoding)"))
            }
            guard let coverage = Coverage(corpus: corpus, chunkLength: chunkLength, words: words, windows: windows)
            else { return .failure(.inconsistent("bits past the last character")) }
            guard coverage.coveredCount == covered else {
                return .failure(.inconsistent("\(coverage.coveredCount) bits set, not \(covered)"))
            }
            return .success(coverage)
        }
        return try result.get()
    }

    /// The LEB128 lengths of alternating runs, uncovered first.
    static func runLengths(_ words: [UInt64], count: Int) -> [UInt8] {
        var output: [UInt8] = []
        var position = 0
        var isCovered = false
        while position < count {
            var end = position
            while end < count && (words[end >> 6] >> UInt64(end & 63) & 1 != 0) == isCovered {
                // A whole word of the same kind at once.
                if end & 63 == 0 && end + 64 <= count && words[end >> 6] == (isCovered ? UInt64.max : 0) {
                    end += 64
                } else {
                    end += 1
                }
            }
            VarInt.append(UInt64(end - position), to: &output)
            position = end
            isCovered.toggle()
        }
        return output
    }

    /// The bitmap the runs describe, or nil if they do not sum to `count`
    /// (or a run after the first is empty, which no writer makes).
    static func bits(ofRuns payload: UnsafeRawBufferPointer, count: Int) -> [UInt64]? {
        var words = [UInt64](repeating: 0, count: (count + 63) / 64)
        var offset = 0
        var position = 0
        var isCovered = false
        while offset < payload.count {
            guard let length = VarInt.load(from: payload, at: &offset), length <= UInt64(count - position),
                length > 0 || position == 0
            else { return nil }
            if isCovered {
                for bit in position..<(position + Int(length)) { words[bit >> 6] |= 1 << UInt64(bit & 63) }
            }
            position += Int(length)
            isCovered.toggle()
        }
        return position == count ? words : nil
    }
}
