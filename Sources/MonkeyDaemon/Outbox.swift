import MonkeyCore

/// What typing produced since the last sync, for every session at once:
/// journal records in one buffer, ready to be appended to the entries
/// journal as they are once sealed. Handing it to the writer is one move
/// and writing it one `write`, however many sessions type.
struct Outbox: Sendable {
    /// Typed entries, in typing order.
    var entries = JournalBatch()
    /// Whole entries files (compactions) that replace a session's file,
    /// with the newest entry they hold.
    var replacements: [(name: SessionName, bytes: [UInt8], lastID: UInt64, lastNumber: UInt64)] = []
    var replacementBytes = 0
    /// Snapshots to write with fresh id reservations.
    var reservations: [(snapshot: SessionSnapshot, ahead: UInt64)] = []

    var isEmpty: Bool { entries.isEmpty && replacements.isEmpty && reservations.isEmpty }

    /// Past this many bytes the outbox is written without waiting for the
    /// end of `sync_interval`, so that a long interval with fast typing
    /// cannot grow it without bound.
    static let largeSize = 16 << 20
    var isLarge: Bool { entries.count + replacementBytes > Self.largeSize }

    mutating func append(_ entry: Entry, session: SessionName) {
        entries.append(entry, session: session)
    }

    mutating func replace(_ name: SessionName, with file: [UInt8], newest: Entry) {
        replacements.append((name, file, newest.id, newest.number))
        replacementBytes += file.count
    }

    /// Drops everything of the session: it was cleared or deleted, and
    /// nothing typed before must reach its files.
    mutating func drop(_ name: SessionName) {
        entries.removeEntries(of: name)
        replacements.removeAll { $0.name == name }
        replacementBytes = replacements.reduce(0) { $0 + $1.bytes.count }
        reservations.removeAll { $0.snapshot.name == name }
    }
}
