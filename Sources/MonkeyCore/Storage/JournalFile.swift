/// The format of the entries journal: what every session typed, in the
/// order it was synced, so that a sync of thousands of sessions is one
/// append and one `fdatasync` rather than one per session file. The
/// journal is folded into the sessions' entries files when it grows past
/// `journal_size`, at start-up and at a clean shutdown.
///
/// After an 8-byte header, a record is `length` (u32, the bytes after the
/// checksum), `crc` (u32, CRC-32C of the length bytes and the rest) and
/// `kind` (u8), then by kind:
/// - entries (3): entries of any sessions (each sync's grouped by session,
///   in typing order within each: `JournalGrouping`), in groups
///   (`JournalGroup`), each the session name's length (u8) and the name in
///   UTF-8, the session's epoch (a `VarInt`, see `Session.epoch`) and the
///   count of its entries (u8, 1 to 255), then those entries: `id`,
///   `number` (`VarInt`s), `flags` (u8, bit 0 = hit), the text's length in
///   bytes (a `VarInt`) and the text in UTF-8. One checksum covers the
///   whole record, and a session's name and epoch come once for its
///   entries of a sync, so an entry of five letters costs about 13 bytes.
///   In format version 3 every entry had the name and epoch before it (no
///   groups, about 19 bytes an entry), and before that only the name;
/// - fresh start (2, written by versions 1 and 2 only): the session name's
///   length and the name. The session's earlier records no longer belong
///   to it (CLEAR, DELETE); version 3 tells them apart by epoch instead;
/// - entry (1, written by format version 1 only): the session name's length
///   and the name, then the entry's record exactly as in its entries file.
/// All fixed-size integers are little-endian.
public enum JournalFile {
    /// "MKYJNL", a zero and the format version.
    public static let header: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, version]
    /// The format version this release writes.
    public static let version: UInt8 = 4
    /// A journal of version 3 (the release before groups) is read too, and
    /// folded whole at start-up.
    public static let headerVersion3: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x03]
    /// Journals of versions 1 and 2 (the first release) are read too, when
    /// a state directory of that release is upgraded; in them every entry
    /// is of epoch 0.
    public static let headerVersion2: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x02]
    public static let headerVersion1: [UInt8] = [0x4D, 0x4B, 0x59, 0x4A, 0x4E, 0x4C, 0x00, 0x01]
    static let recordHeaderLength = 8
    /// An entries record is sealed once it holds this many bytes, so that
    /// a record stays a size whose checksum is quick to compute.
    static let entriesRecordLimit = 1 << 20
    /// The longest entry in an entries record, with a group's head of its
    /// own: name, epoch, count, two 10-byte `VarInt`s, flags, a 5-byte
    /// `VarInt` length and the longest text.
    static let maximumEntryLength = 1 + 255 + 10 + 1 + 10 + 10 + 1 + 5 + EntryFile.maximumPayloadLength
    /// No record is longer; a longer length field is damage, not a record.
    static let maximumRecordLength = 1 + entriesRecordLimit + maximumEntryLength

    enum Kind: UInt8 {
        case entry = 1
        case freshStart = 2
        case entries = 3
    }

}
