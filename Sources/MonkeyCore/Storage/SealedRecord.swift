/// The seal every file of the store puts on what it must tell whole from
/// damaged (an entry, a journal or control record, an event, the corpus
/// copy and the coverage after their magic): `length` (u32, of the body),
/// `crc` (u32, CRC-32C of the length's four bytes and then the body), the
/// body. One definition, so that the formats cannot drift apart.
enum SealedRecord {
    /// The length and the checksum before the body.
    static let headerLength = 8

    /// The checksum of the sealed record at `offset` whose body is `bodyLength` bytes.
    static func checksum(of bytes: UnsafeRawBufferPointer, at offset: Int, bodyLength: Int) -> UInt32 {
        let bodyStart = offset + headerLength
        return CRC32C.checksum(
            UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<(bodyStart + bodyLength)]),
            continuing: CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)])))
    }

    /// Fills in the length and the checksum of `record`, a whole sealed
    /// record whose body runs to its end.
    static func seal(_ record: UnsafeMutableRawBufferPointer) {
        let bodyLength = record.count - headerLength
        record.storeBytes(of: UInt32(bodyLength).littleEndian, as: UInt32.self)
        let crc = checksum(of: UnsafeRawBufferPointer(record), at: 0, bodyLength: bodyLength)
        record.storeBytes(of: crc.littleEndian, toByteOffset: 4, as: UInt32.self)
    }

    /// Whether the checksum stored in the sealed record at `offset` is its
    /// body's, the body being `bodyLength` bytes (already checked to be there).
    static func isIntact(_ bytes: UnsafeRawBufferPointer, at offset: Int, bodyLength: Int) -> Bool {
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        return stored == checksum(of: bytes, at: offset, bodyLength: bodyLength)
    }

    /// The body of the sealed record at `offset` and the offset past it, or
    /// why there is none.
    static func body(in bytes: UnsafeRawBufferPointer, at offset: Int, maximumLength: Int)
        -> Result<(body: UnsafeRawBufferPointer, end: Int), EntryFileContents.Damage>
    {
        guard bytes.count - offset >= headerLength + 1 else { return .failure(.truncatedRecord(offset: offset)) }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length >= 1, length <= maximumLength else { return .failure(.badLength(offset: offset)) }
        let bodyStart = offset + headerLength
        guard bytes.count - bodyStart >= length else { return .failure(.truncatedRecord(offset: offset)) }
        guard isIntact(bytes, at: offset, bodyLength: length) else {
            return .failure(.checksumMismatch(offset: offset))
        }
        return .success((UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<(bodyStart + length)]), bodyStart + length))
    }
}
