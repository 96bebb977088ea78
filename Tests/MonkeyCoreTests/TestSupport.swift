import Testing

@testable import MonkeyCore

/// A peer allowed to change state (root).
let admin = Peer(uid: 0, pid: 1, mayChange: true)
/// A peer that may only read.
let visitor = Peer(uid: 1000, pid: 2, mayChange: false)

/// Milliseconds as the engine's nanosecond clock values.
func ms(_ milliseconds: UInt64) -> UInt64 { milliseconds * 1_000_000 }

func sessionName(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SessionName {
    try #require(SessionName(text), sourceLocation: sourceLocation)
}

func alphabet(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Alphabet {
    do {
        return try Alphabet(validating: text, limit: 256)
    } catch {
        Issue.record("alphabet \(text) refused: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The error the default parser gives for a line, or nil if it parses.
func parseError(_ text: String, limits: Limits = Limits()) -> ProtocolError? {
    do {
        _ = try RequestParser(limits: limits).parse(text)
        return nil
    } catch {
        return error
    }
}

func parseError(bytes: [UInt8]) -> ProtocolError? {
    do {
        _ = try RequestParser(limits: Limits()).parse(bytes)
        return nil
    } catch {
        return error
    }
}

/// What the daemon does with a change and with typed entries, played by
/// a test: records what it is asked and fails on demand.
final class TestStore {
    var failure: StorageError?
    /// How many entries after each one it sees with the session's bookkeeping go to `record` instead.
    var entriesUnseen: UInt64 = 0
    /// Whether it keeps the sessions' entries at all.
    var keepsEntries = true
    private(set) var saved: [SessionSnapshot] = []
    private(set) var cleared: [SessionSnapshot] = []
    private(set) var deleted: [SessionName] = []
    /// Entries seen with the session's bookkeeping.
    private(set) var appended: [Entry] = []
    /// Entries recorded in bulk.
    private(set) var recorded: [Entry] = []

    /// Carries out a change, as `FileStore.commit` does, with `state`, the
    /// session's state once the change is made.
    func perform(_ effect: Effect, state: SessionSnapshot?) throws(StorageError) {
        if let failure { throw failure }
        switch effect {
        case .save(let name, let epoch), .clear(let name, let epoch):
            guard let state, state.name == name, state.epoch == epoch else {
                Issue.record("\(effect) without the session's state in its epoch: \(String(describing: state))")
                return
            }
            if case .save = effect { saved.append(state) } else { cleared.append(state) }
        case .delete(let name): deleted.append(name)
        }
    }

    /// Takes a typed entry as the daemon's store does; returns the id of the
    /// next entry it must see itself, when it saw this one so.
    func take(_ typed: TypedEntry) -> UInt64? {
        guard keepsEntries else { return nil }
        guard typed.needsAttention else {
            recorded.append(typed.entry)
            return nil
        }
        appended.append(typed.entry)
        return typed.entry.id + 1 + entriesUnseen
    }
}

/// An engine driven with protocol lines, a fixed seed and explicit times,
/// its changes and typed entries carried out as the daemon does.
struct Harness {
    var engine: Engine
    let parser: RequestParser
    let store: TestStore

    init(limits: Limits = Limits(), store: TestStore = TestStore(), seed: UInt64 = 2024) {
        engine = Engine(limits: limits, seed: seed)
        parser = RequestParser(limits: limits)
        self.store = store
    }

    mutating func send(
        _ line: String, now: UInt64 = 0, from peer: Peer = admin, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Reply {
        let request = try #require(try parser.parse(line), sourceLocation: sourceLocation)
        var reply = engine.handle(request, from: peer, now: now)
        if let change = reply.change {
            do {
                try store.perform(change.effect, state: engine.snapshot(of: change.session))
            } catch {
                reply = engine.revert(change, because: error)
            }
        }
        return reply
    }

    /// The records of a STATUS of every session, read `byteLimit` bytes
    /// at a time, and how many reads it took.
    mutating func listAll(byteLimit: Int = .max) throws -> (records: [Record], reads: Int) {
        let reply = try send("STATUS")
        var listing = try #require(reply.listing)
        #expect(reply.status == nil && reply.records.isEmpty, "the status line ends the listing")
        var output: [UInt8] = []
        var reads = 0
        var lines: [String] = []
        while true {
            reads += 1
            let isFinished = engine.fill(&listing, into: &output, byteLimit: byteLimit)
            lines += String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
            output.removeAll()
            if isFinished { break }
        }
        return (try lines.map { line throws(ResponseDecoder.Malformed) in try ResponseDecoder.record(line) }, reads)
    }

    /// Sends a line that must succeed.
    mutating func expectOK(_ line: String, now: UInt64 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try send(line, now: now, sourceLocation: sourceLocation)
        guard case .ok = reply.status else {
            Issue.record("\(line) answered \(String(describing: reply.status))", sourceLocation: sourceLocation)
            return
        }
    }

    /// Runs the ticks due at `now`, returning the entries typed, in order.
    mutating func tick(now: UInt64) -> (entries: [(session: SessionName, entry: Entry)], events: [Event]) {
        var typed: [TypedEntry] = []
        let events = engine.runDueTicks(now: now, into: &typed)
        for item in typed {
            if let next = store.take(item) { engine.setAttention(item.session, from: next) }
        }
        return (typed.map { ($0.session, $0.entry) }, events)
    }

    /// Runs one tick every interval from `start`, `count` times.
    mutating func tick(times count: Int, every interval: UInt64 = ms(100), from start: UInt64 = ms(100)) {
        for step in 0..<UInt64(count) { _ = tick(now: start + step * interval) }
    }

    /// The single STATUS record of a session.
    mutating func status(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Record {
        let reply = try send("STATUS \(name)", sourceLocation: sourceLocation)
        #expect(reply.status == .ok(nil), sourceLocation: sourceLocation)
        return try #require(reply.records.first, sourceLocation: sourceLocation)
    }

    /// Writes a LOG or TAIL reply's stream with no byte limit and decodes it.
    func drain(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Record] {
        var stream = try #require(reply.stream, sourceLocation: sourceLocation)
        return try drain(&stream, sourceLocation: sourceLocation)
    }

    func drain(_ stream: inout LogStream, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Record] {
        var output: [UInt8] = []
        let progress = engine.fill(&stream, into: &output, byteLimit: .max)
        #expect(progress == .finished, sourceLocation: sourceLocation)
        return try decodeRecords(output)
    }
}

/// Decodes LF-terminated data lines; every line must be a record.
func decodeRecords(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Record] {
    #expect(bytes.isEmpty || bytes.last == 0x0A, "output ends mid-line", sourceLocation: sourceLocation)
    return try bytes.split(separator: 0x0A).map { line in
        let decoded = try ResponseDecoder.decode(String(decoding: line, as: UTF8.self))
        guard case .record(let record) = decoded else {
            Issue.record("not a record: \(decoded)", sourceLocation: sourceLocation)
            return Record(type: "", fields: [])
        }
        return record
    }
}

/// Pearson's chi-square statistic of observed counts against a uniform distribution.
func chiSquare(_ counts: [Int]) -> Double {
    let total = Double(counts.reduce(0, +))
    let expected = total / Double(counts.count)
    return counts.reduce(0.0) { sum, count in
        let difference = Double(count) - expected
        return sum + difference * difference / expected
    }
}

/// Critical chi-square values at p = 0.001, by degrees of freedom
/// (Wilson–Hilferty approximation, within 1% of the tables for these sizes).
func chiSquareCritical(degreesOfFreedom: Int) -> Double {
    let k = Double(degreesOfFreedom)
    let z = 3.090_232  // the 0.999 quantile of the standard normal
    let term = 1 - 2 / (9 * k) + z * (2 / (9 * k)).squareRoot()
    return k * term * term * term
}

/// What the renderings of an event say, as text, for tests to compare.
extension Event {
    typealias Field = EventRecord.Field

    /// The journal's fields (and the stderr line's).
    var fields: [Field] {
        var fields = RecordFields()
        writeFields(to: &fields)
        return fields.fields.map { Field($0.key, $0.value) }
    }

    func value(of key: String) -> String? {
        fields.first { $0.key == key }?.value
    }

    /// The fields of each EVENTS record the event makes, in order.
    var recordFields: [[Field]] {
        var all: [[Field]] = []
        guard let session else { return all }
        forEachRecordKind { kind in
            var fields = RecordFields()
            EventRecord(id: 1, time: 0, kind: kind, session: session, content: .event(payload)).writeFields(to: &fields)
            all.append(fields.fields.map { Field($0.key, $0.value) })
        }
        return all
    }
}
