/// The format of the entries journal: what every session typed, in the
/// order it was synced, so that a sync of thousands of sessions is one
/// append and one `fdatasync` rather than one per session file. The
/// journal is folded into the sessions' entries files when it grows past
/// `journal_size`, at start-up and at a clean shutdown.
///
/// After an 8-byte header, a record is `length` (u32, the bytes after the
/// checksum), `crc` (u32, CRC-32C of the length bytes and the rest) and
/// `kind` (u8), then by kind:
/// - entries (3): a run of entries of any sessions (each sync's grouped by
///   session, in typing order within each: `JournalGrouping`), each the session name's
///   length (u8) and the name in UTF-8, the session's epoch (a `VarInt`;
///   format version 3 on, see `Session.epoch`), then `id`, `number` (`VarInt`s),
///   `flags` (u8, bit 0 = hit), the text's length in bytes (a `VarInt`) and
///   the text in UTF-8. One checksum covers the whole run, so an entry
///   costs about 19 bytes and no checksum of its own;
/// - fresh start (2, written by versions 1 and 2 only): the session name's
///   length and the name. The session's earlier records no longer belong
///   to it (CLEAR, DELETE); version 3 tells them apart by epoch instead;
/// - entry (1, written by format version 1 only): the session name's length
///   and the name, then the entry's record exactly as in its entries file.
/// All fixed-size integers are little-endian.
public enum JournalFile {
    /// "MKYJNL", a zero and the format version.
    public static let header: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x03]
    /// Journals of versions 1 and 2 (the first release) are read too, when
    /// a state directory of that release is upgraded; in them every entry
    /// is of epoch 0.
    public static let headerVersion2: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x02]
    public static let headerVersion1: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x01]
    static let recordHeaderLength = 8
    /// An entries record is sealed once it holds this many bytes, so that
    /// a record stays a size whose checksum is quick to compute.
    static let entriesRecordLimit = 1 << 20
    /// The longest entry in an entries record: name, two 10-byte `VarInt`s,
    /// flags, a 5-byte `VarInt` length and the longest text.
    static let maximumEntryLength = 1 + 255 + 10 + 10 + 10 + 1 + 5 + EntryFile.maximumPayloadLength
    /// No record is longer; a longer length field is damage, not a record.
    static let maximumRecordLength = 1 + entriesRecordLimit + maximumEntryLength

    enum Kind: UInt8 {
        case entry = 1
        case freshStart = 2
        case entries = 3
    }

}
