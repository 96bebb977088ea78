/// The format of a corpus session's own copy of its works on disk (the
/// `CorpusSource` it keeps, so that a restart covers the same text even if
/// the files in `corpus_dir` changed). As the coverage file: eight bytes,
/// then one record, its length and its CRC-32C (of the length and of the
/// contents), 32 bits each, little-endian, then its contents:
///
///     magic     8 bytes  "MKYSRC", 0, 1 (the format version)
///     length    u32      the contents' bytes
///     crc       u32      CRC-32C of the length's 4 bytes and the contents
///     contents:  the corpus's name, the number of works, then each work's
///                name, file name and bytes (texts and byte strings a
///                VarInt length, then the bytes; the count a VarInt)
public enum CorpusSourceFile {
    /// "MKYSRC", a zero and the format version.
    public static let magic: [UInt8] = [0x4D, 0x4B, 0x59, 0x53, 0x52, 0x43, 0x00, 0x01]
    static let preambleLength = 16

    /// Why a copy cannot be read back.
    public enum Damage: Error, Sendable, Equatable {
        case notACopy
        case cut
        case badChecksum
        case malformed
        /// It reads, but its works are not a corpus under today's limits.
        case refused(CorpusError)

        public var message: String {
            switch self {
            case .notACopy: "it is not a corpus copy of this version"
            case .cut: "it is cut short or has bytes after its record"
            case .badChecksum: "its checksum does not match"
            case .malformed: "its record is malformed"
            case .refused(let error): error.message
            }
        }
    }

    public static func encode(_ source: CorpusSource) -> [UInt8] {
        var output = magic
        output.append(contentsOf: [UInt8](repeating: 0, count: 8))
        output.appendText(source.name)
        VarInt.append(UInt64(source.works.count), to: &output)
        for work in source.works {
            output.appendText(work.name)
            output.appendText(work.file)
            VarInt.append(UInt64(work.text.count), to: &output)
            output.append(contentsOf: work.text)
        }
        // After the magic, the rest is one sealed record.
        output.withUnsafeMutableBytes { SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: $0[magic.count...])) }
        return output
    }

    public static func decode(_ bytes: [UInt8], limits: CorpusLimits) throws(Damage) -> CorpusSource {
        guard bytes.count >= preambleLength, bytes.starts(with: magic) else { throw .notACopy }
        let read = bytes.withUnsafeBytes { raw -> Result<(String, [(name: String, bytes: [UInt8])]), Damage> in
            let length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard Int(length) == raw.count - preambleLength else { return .failure(.cut) }
            guard SealedRecord.isIntact(raw, at: magic.count, bodyLength: Int(length)) else {
                return .failure(.badChecksum)
            }
            var reader = FieldReader(raw, at: preambleLength)
            guard let name = reader.text(), let count = reader.integer(), count <= UInt64(raw.count) else {
                return .failure(.malformed)
            }
            var files: [(name: String, bytes: [UInt8])] = []
            for _ in 0..<count {
                guard reader.text() != nil, let file = reader.text(), let size = reader.integer(),
                    size <= UInt64(raw.count - reader.offset)
                else { return .failure(.malformed) }
                let text = [UInt8](raw[reader.offset..<(reader.offset + Int(size))])
                reader.offset += Int(size)
                files.append((file, text))
            }
            guard reader.isAtEnd else { return .failure(.malformed) }
            return .success((name, files))
        }
        let (name, files) = try read.get()
        do {
            return try CorpusSource(name: name, files: files, limits: limits)
        } catch {
            throw .refused(error)
        }
    }
}
