/// What reading a control log segment found: its records, and where and
/// why reading stopped if the segment did not end cleanly (a torn last
/// write is cut there).
public struct ControlLogContents: Sendable, Equatable {
    public var segment: UInt64 = 0
    public var records: [ControlRecord] = []
    /// Bytes from the start that hold the preamble and good records.
    public var validLength = 0
    public var damage: EntryFileContents.Damage?
}

extension ControlFile {
    /// Reads a log segment, stopping at the first record that is torn or
    /// corrupt, or where only zeros follow (the segment's room ahead).
    public static func decodeLog(_ bytes: UnsafeRawBufferPointer) -> ControlLogContents {
        var contents = ControlLogContents()
        guard EntryFileContents.Damage.checkHeader(logHeader, of: bytes, damage: &contents.damage) else {
            return contents
        }
        guard bytes.count >= preambleLength else {
            contents.damage = .truncatedRecord(offset: logHeader.count)
            return contents
        }
        contents.segment = EntryFile.integer(UInt64.self, bytes, at: logHeader.count)
        var offset = preambleLength
        while offset < bytes.count {
            switch record(in: bytes, at: offset) {
            case .success(let (record, end)):
                contents.records.append(record)
                offset = end
            case .failure(let damage):
                // Zeros to the end are the room the log keeps ahead of its
                // records (see `ControlLog`), not damage: no record starts
                // with a zero length.
                if !bytes[offset...].allSatisfy({ $0 == 0 }) { contents.damage = damage }
                contents.validLength = offset
                return contents
            }
        }
        contents.validLength = bytes.count
        return contents
    }

    public static func decodeLog(_ bytes: [UInt8]) -> ControlLogContents {
        bytes.withUnsafeBytes { decodeLog($0) }
    }

    /// Why a snapshot cannot be read, in words for the operator.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads a snapshot: every record must be whole and the last must be
    /// its end (a snapshot is written whole, then renamed into place).
    /// Returns the state and the last log segment it holds.
    public static func decodeSnapshot(_ bytes: [UInt8]) throws(Problem) -> (state: ControlState, segment: UInt64) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(Problem) in try decodeSnapshot(raw) }
        }.get()
    }

    static func decodeSnapshot(_ raw: UnsafeRawBufferPointer) throws(Problem) -> (state: ControlState, segment: UInt64)
    {
        var damage: EntryFileContents.Damage?
        guard EntryFileContents.Damage.checkHeader(snapshotHeader, of: raw, damage: &damage),
            raw.count >= preambleLength
        else { throw Problem("it does not start with the snapshot header") }
        let segment = EntryFile.integer(UInt64.self, raw, at: snapshotHeader.count)
        var state = ControlState()
        var count: UInt64 = 0
        var offset = preambleLength
        while offset < raw.count {
            switch record(in: raw, at: offset) {
            case .success(let (record, end)):
                if case .end(let expected) = record {
                    guard expected == count, end == raw.count else {
                        throw Problem("its end record does not match its records")
                    }
                    return (state, segment)
                }
                state.apply(record)
                count += 1
                offset = end
            case .failure(let damage):
                throw Problem(damage.description)
            }
        }
        throw Problem("it ends before its end record (a torn write)")
    }

    /// The record at `offset` and the offset past it, or why there is none.
    static func record(in bytes: UnsafeRawBufferPointer, at offset: Int)
        -> Result<(ControlRecord, Int), EntryFileContents.Damage>
    {
        SealedRecord.body(in: bytes, at: offset, maximumLength: maximumRecordLength).flatMap { sealed in
            guard let record = record(sealed.body) else { return .failure(.checksumMismatch(offset: offset)) }
            return .success((record, sealed.end))
        }
    }

    /// A record's body, or nil if it is malformed.
    static func record(_ body: UnsafeRawBufferPointer) -> ControlRecord? {
        var reader = FieldReader(body, at: 1)
        let record: ControlRecord?
        switch Kind(rawValue: body[0]) {
        case .session: record = session(&reader).map { .session($0) }
        case .deleted: record = reader.text().flatMap(SessionName.init).map { .deleted($0) }
        case .reservation:
            guard let name = reader.text().flatMap(SessionName.init), let epoch = reader.integer(),
                let reservedID = reader.integer(), let reservedNumber = reader.integer()
            else { return nil }
            record = .reservation(
                Reservation(name: name, epoch: epoch, reservedID: reservedID, reservedNumber: reservedNumber))
        case .epochs: record = reader.integer().map { .epochs(next: $0) }
        case .end: record = reader.integer().map { .end(count: $0) }
        case .eventIDs: record = reader.integer().map { .eventIDs(reservedThrough: $0) }
        case nil: record = nil
        }
        return reader.isAtEnd ? record : nil
    }

    private static func session(_ reader: inout FieldReader) -> StoredSession? {
        guard let name = reader.text().flatMap(SessionName.init), let epoch = reader.integer(),
            let flags = reader.integer(), flags <= 7, let monkeys = reader.integer(), monkeys >= 1,
            monkeys <= UInt64(Int32.max), let interval = reader.integer(),
            let alphabetText = reader.text(), let alphabet = try? Alphabet(validating: alphabetText, limit: 1 << 20),
            let target = reader.text()
        else { return nil }
        var values: [UInt64] = []
        for _ in 0..<7 {
            guard let value = reader.integer() else { return nil }
            values.append(value)
        }
        let (nextID, nextNumber, typed, hits, bestLength, reservedID, reservedNumber) = (
            values[0], values[1], values[2], values[3], values[4], values[5], values[6]
        )
        guard nextID >= 1, nextNumber >= 1, bestLength <= UInt64(Int32.max) else { return nil }
        var seed: TypingSeed?
        if flags & 2 != 0 {
            guard let value = reader.fixed64() else { return nil }
            seed = TypingSeed(value)
        }
        var corpus = ""
        var chunk = SessionSettings.defaultChunk
        if flags & 4 != 0 {
            guard let name = reader.text(), name.isEmpty || SessionName(name) != nil, let length = reader.integer(),
                SessionSettings.chunks.contains(Int(clamping: length))
            else { return nil }
            corpus = name
            chunk = Int(length)
        }
        let settings = SessionSettings(
            monkeys: Int(monkeys), interval: Interval(nanoseconds: interval), alphabet: alphabet,
            target: TargetMatcher(target: target), seed: seed, corpus: corpus, chunk: chunk)
        let snapshot = SessionSnapshot(
            name: name, settings: settings, isTyping: flags & 1 != 0, nextID: nextID, nextNumber: nextNumber,
            typed: typed,
            hits: hits, bestLength: min(Int(bestLength), settings.target.length), epoch: epoch)
        return StoredSession(
            snapshot: snapshot, reservedID: max(reservedID, nextID), reservedNumber: max(reservedNumber, nextNumber))
    }
}

/// What reading a snapshot found, damaged or not.
public struct SnapshotContents: Sendable, Equatable {
    public var state = ControlState()
    public var segment: UInt64 = 0
    /// What is wrong with it, if anything: then `state` holds the records
    /// that could be read.
    public var problem: String?
}

extension ControlFile {
    /// Reads a snapshot as far as it can: a record whose checksum fails is
    /// skipped when its length still leads to a good record, reading stops
    /// where the framing is lost. A damaged snapshot so loses only the
    /// sessions whose records are damaged.
    public static func decodeSnapshotLeniently(_ bytes: [UInt8]) -> SnapshotContents {
        if let (state, segment) = try? decodeSnapshot(bytes) { return SnapshotContents(state: state, segment: segment) }
        var contents = SnapshotContents()
        return bytes.withUnsafeBytes { raw in
            var damage: EntryFileContents.Damage?
            guard EntryFileContents.Damage.checkHeader(snapshotHeader, of: raw, damage: &damage),
                raw.count >= preambleLength
            else {
                contents.problem = "it does not start with the snapshot header"
                return contents
            }
            contents.segment = EntryFile.integer(UInt64.self, raw, at: snapshotHeader.count)
            var problems: [String] = []
            var offset = preambleLength
            scan: while offset < raw.count {
                switch record(in: raw, at: offset) {
                case .success(let (record, end)):
                    if case .end = record { break scan }
                    contents.state.apply(record)
                    offset = end
                case .failure(let damage):
                    problems.append(damage.description)
                    // Skip the record if its length leads to one that reads.
                    let length =
                        raw.count - offset >= recordHeaderLength
                        ? Int(EntryFile.integer(UInt32.self, raw, at: offset)) : 0
                    let next = offset + recordHeaderLength + length
                    guard length > 0, next < raw.count, case .success = Self.record(in: raw, at: next) else {
                        break scan
                    }
                    offset = next
                }
            }
            contents.problem = problems.isEmpty ? "it ends before its end record" : problems.joined(separator: "; ")
            return contents
        }
    }
}
