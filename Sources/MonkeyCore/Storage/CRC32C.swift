internal import CChecksum

/// CRC-32C (Castagnoli), the checksum of the store's records and files:
/// the processor's instruction where there is one, else table-driven eight
/// bytes at a time, so that checksumming each typed entry and verifying a
/// state directory at start-up cost little.
public enum CRC32C {
    /// The checksum of `bytes`, continuing from `crc` (0 to start).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard isAccelerated else { return tableDrivenChecksum(bytes, continuing: crc) }
        return monkey_crc32c_accelerated(crc, bytes.baseAddress, bytes.count)
    }

    public static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }

    static let isAccelerated = monkey_crc32c_is_accelerated() != 0

    /// The same checksum without the instruction.
    static func tableDrivenChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32) -> UInt32 {
        var crc = ~crc
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { table in
            while count - index >= 8 {
                let low =
                    UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                    | UInt32(bytes[index + 3]) << 24
                let one = crc ^ low
                let two =
                    UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8 | UInt32(bytes[index + 6]) << 16
                    | UInt32(bytes[index + 7]) << 24
                crc =
                    table[7 * 256 + Int(one & 0xff)] ^ table[6 * 256 + Int((one >> 8) & 0xff)]
                    ^ table[5 * 256 + Int((one >> 16) & 0xff)] ^ table[4 * 256 + Int(one >> 24)]
                    ^ table[3 * 256 + Int(two & 0xff)] ^ table[2 * 256 + Int((two >> 8) & 0xff)]
                    ^ table[1 * 256 + Int((two >> 16) & 0xff)] ^ table[Int(two >> 24)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xff)] ^ (crc >> 8)
                index += 1
            }
        }
        return ~crc
    }

    /// Eight 256-entry tables: table k gives the CRC of a byte followed by k zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[byte]
            for slice in 1..<8 {
                crc = tables[Int(crc & 0xff)] ^ (crc >> 8)
                tables[slice * 256 + byte] = crc
            }
        }
        return tables
    }()
}
