import MonkeyCore

/// What typing produced since the last sync, for every session at once:
/// encoded records one after another in one buffer, and in typing order
/// which session each belongs to. Handing it to the writer is one move,
/// however many sessions type (handing over one buffer per session took
/// 4 ms of the daemon's queue at 10,000 sessions, and ticks waited).
struct Outbox: Sendable {
    /// One record, or a whole new entries file, of the session with `key`.
    struct Item: Sendable {
        let key: Int
        /// Where the record lies in `bytes`; for a replacement, the index in
        /// `replacements` and a length of -1.
        let start: Int
        let length: Int
        var isReplacement: Bool { length < 0 }
    }

    var bytes: [UInt8] = []
    var items: [Item] = []
    /// Whole entries files (compactions) that replace a session's file,
    /// with the newest entry they hold.
    var replacements: [(bytes: [UInt8], lastID: UInt64, lastNumber: UInt64)] = []
    var replacementBytes = 0
    /// Snapshots to write with fresh id reservations.
    var reservations: [(key: Int, snapshot: SessionSnapshot, ahead: UInt64)] = []

    var isEmpty: Bool { items.isEmpty && reservations.isEmpty }

    /// Past this many bytes the outbox is written without waiting for the
    /// end of `sync_interval`, so that a long interval with fast typing
    /// cannot grow it without bound.
    static let largeSize = 16 << 20
    var isLarge: Bool { bytes.count + replacementBytes > Self.largeSize }

    mutating func append(_ entry: Entry, key: Int) {
        let start = bytes.count
        EntryFile.appendRecord(entry, to: &bytes)
        items.append(Item(key: key, start: start, length: bytes.count - start))
    }

    mutating func replace(key: Int, with file: [UInt8], newest: Entry) {
        items.append(Item(key: key, start: replacements.count, length: -1))
        replacements.append((file, newest.id, newest.number))
        replacementBytes += file.count
    }
}
