/// The formats of the control log and of the snapshot that compacts it.
///
/// Every acknowledged change (START, STOP, SET, CLEAR, DELETE) is a record
/// appended to the control log; the changes read in one pass of the event
/// loop share one append and one `fdatasync` (group commit). When the log
/// grows large, a snapshot of every session is written and a new log
/// segment begun; start-up reads the snapshot, then replays the segments
/// after it in order.
///
/// Both files are an 8-byte header and a little-endian u64 (the segment
/// number: of the log, or the last segment the snapshot holds), then
/// records framed as in the entries journal: `length` (u32, the bytes after
/// the checksum), `crc` (u32, CRC-32C of the length bytes and the rest),
/// `kind` (u8) and the body. Integers in bodies are `VarInt`s, texts a
/// `VarInt` length and UTF-8, by kind:
/// - session (1): name, epoch, flags (bit 0: typing, bit 1: seeded, bit 2:
///   a corpus or a chunk length other than 9), monkeys, interval (ns), alphabet, target, next id,
///   next number, typed, hits, best length, reserved id, reserved number,
///   if seeded the seed (a little-endian u64), and with bit 2 the
///   corpus's name (empty for none) and the chunk length: the session's whole state;
/// - deleted (2): name;
/// - reservation (3): name, epoch, reserved id, reserved number;
/// - epochs (4): the next epoch to give (no session gets a lower one);
/// - end (5): the number of records before it; a snapshot ends with it;
/// - event ids (6): event ids below this may have been handed out.
public enum ControlFile {
    /// "MKYCTL", a zero and the format version.
    public static let logHeader: [UInt8] = [0x4D, 0x4B, 0x59, 0x43, 0x54, 0x4C, 0x00, 0x01]
    /// "MKYSNP", a zero and the format version.
    public static let snapshotHeader: [UInt8] = [0x4D, 0x4B, 0x59, 0x53, 0x4E, 0x50, 0x00, 0x01]
    /// The header and the segment number.
    public static let preambleLength = 16
    static let recordHeaderLength = 8
    /// A record holds one session, whose target and alphabet are bounded
    /// by the configuration (at most a few megabytes); a longer length
    /// field is damage.
    static let maximumRecordLength = 16 << 20

    enum Kind: UInt8 {
        case session = 1
        case deleted = 2
        case reservation = 3
        case epochs = 4
        case end = 5
        case eventIDs = 6
    }

    /// The start of a log segment or snapshot file.
    public static func preamble(_ header: [UInt8], segment: UInt64) -> [UInt8] {
        var output = header
        output.appendFixed64(segment)
        return output
    }

    /// Appends one record, sealed with its length and checksum.
    public static func append(_ record: ControlRecord, to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: recordHeaderLength))
        switch record {
        case .session(let stored):
            output.append(Kind.session.rawValue)
            let snapshot = stored.snapshot
            let settings = snapshot.settings
            output.appendText(snapshot.name.text)
            VarInt.append(snapshot.epoch, to: &output)
            VarInt.append(
                (snapshot.isTyping ? 1 : 0) | (settings.seed == nil ? 0 : 2) | (settings.storesCorpus ? 4 : 0),
                to: &output)
            VarInt.append(UInt64(settings.monkeys), to: &output)
            VarInt.append(settings.interval.nanoseconds, to: &output)
            output.appendText(settings.alphabet.text)
            output.appendText(settings.target.target)
            for value in [
                snapshot.nextID, snapshot.nextNumber, snapshot.typed, snapshot.hits, UInt64(snapshot.bestLength),
                stored.reservedID, stored.reservedNumber,
            ] {
                VarInt.append(value, to: &output)
            }
            if let seed = settings.seed { output.appendFixed64(seed.value) }
            if settings.storesCorpus {
                output.appendText(settings.corpus)
                VarInt.append(UInt64(settings.chunk), to: &output)
            }
        case .deleted(let name):
            output.append(Kind.deleted.rawValue)
            output.appendText(name.text)
        case .reservation(let reservation):
            output.append(Kind.reservation.rawValue)
            output.appendText(reservation.name.text)
            for value in [reservation.epoch, reservation.reservedID, reservation.reservedNumber] {
                VarInt.append(value, to: &output)
            }
        case .epochs(let next):
            output.append(Kind.epochs.rawValue)
            VarInt.append(next, to: &output)
        case .end(let count):
            output.append(Kind.end.rawValue)
            VarInt.append(count, to: &output)
        case .eventIDs(let reserved):
            output.append(Kind.eventIDs.rawValue)
            VarInt.append(reserved, to: &output)
        }
        output.withUnsafeMutableBytes { SealedRecord.seal(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// A whole snapshot file: the state after every record of the log
    /// segments up to `segment`.
    public static func encodeSnapshot(_ state: ControlState, segment: UInt64) -> [UInt8] {
        var output = preamble(snapshotHeader, segment: segment)
        append(.epochs(next: state.nextEpoch), to: &output)
        append(.eventIDs(reservedThrough: state.eventsReservedID), to: &output)
        for name in state.sessions.keys.sorted() {
            guard let stored = state.sessions[name] else { continue }
            append(.session(stored), to: &output)
        }
        append(.end(count: UInt64(state.sessions.count + 2)), to: &output)
        return output
    }
}

/// One record of the control log or of a snapshot.
public enum ControlRecord: Sendable, Equatable {
    /// A session's whole state after a change, with its ids reserved ahead.
    case session(StoredSession)
    /// A session is gone.
    case deleted(SessionName)
    /// A typing session's ids reserved further.
    case reservation(Reservation)
    /// No session gets an epoch below `next`.
    case epochs(next: UInt64)
    /// The end of a snapshot, after `count` records.
    case end(count: UInt64)
    /// Event ids below this may have been handed out (see `EventLog`).
    case eventIDs(reservedThrough: UInt64)
}

/// Ids and numbers of a session's epoch that may have been handed out.
public struct Reservation: Sendable, Equatable {
    public let name: SessionName
    public let epoch: UInt64
    public let reservedID: UInt64
    public let reservedNumber: UInt64

    public init(name: SessionName, epoch: UInt64, reservedID: UInt64, reservedNumber: UInt64) {
        self.name = name
        self.epoch = epoch
        self.reservedID = reservedID
        self.reservedNumber = reservedNumber
    }

    /// The reservation a stored session holds.
    public init(_ stored: StoredSession) {
        self.init(
            name: stored.snapshot.name, epoch: stored.snapshot.epoch, reservedID: stored.reservedID,
            reservedNumber: stored.reservedNumber)
    }
}

/// What the control records say: every session's stored state, and the
/// next epoch to give. Replaying a snapshot and then the log segments
/// after it, in order, gives the state of the last acknowledged change.
public struct ControlState: Sendable, Equatable {
    public var sessions: [SessionName: StoredSession] = [:]
    public var nextEpoch: UInt64 = 1
    /// Event ids below this may have been handed out.
    public var eventsReservedID: UInt64 = 1

    public init() {}

    public mutating func apply(_ record: ControlRecord) {
        switch record {
        case .session(let stored):
            sessions[stored.snapshot.name] = stored
            nextEpoch = max(nextEpoch, stored.snapshot.epoch + 1)
        case .deleted(let name):
            sessions[name] = nil
        case .reservation(let reservation):
            guard var stored = sessions[reservation.name], stored.snapshot.epoch == reservation.epoch else { return }
            stored.reservedID = max(stored.reservedID, reservation.reservedID)
            stored.reservedNumber = max(stored.reservedNumber, reservation.reservedNumber)
            sessions[reservation.name] = stored
        case .epochs(let next):
            nextEpoch = max(nextEpoch, next)
        case .eventIDs(let reserved):
            eventsReservedID = max(eventsReservedID, reserved)
        case .end:
            break
        }
    }
}
