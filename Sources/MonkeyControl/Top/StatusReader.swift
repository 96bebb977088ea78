import MonkeyCore

/// Reads STATUS `session` lines into `SessionFigures` straight from their
/// bytes, remembering each session's figures from the refresh before: a
/// line that has not changed is not read again, and in one that has, a
/// value whose text has not changed (the interval, the alphabet, the
/// target, best progress, the odds) is taken from last time. With 10,000
/// sessions a second, reading every line through `ResponseDecoder.record`
/// and parsing its durations and wide numbers again was most of what `top`
/// cost. The figures are those of `SessionFigures(Record)` (tests hold
/// the two readers equal).
struct StatusReader {
    /// What a session's last line was and said.
    private struct Memory {
        var line: [UInt8]
        var figures: SessionFigures
    }

    /// The last answer's sessions, in its order (the daemon's: by name).
    private var memory: [Memory] = []
    /// Where in `memory` the next line's session probably is.
    private var cursor = 0
    /// `memory` by name, built when the walk in step loses its way.
    private var memoryIndex: [String: Int]?
    /// The sessions of the STATUS being read; they replace `memory` at its end.
    private var reading: [Memory] = []

    /// A line of the STATUS under way: its figures, or nil for a line that
    /// is not a session's (or not logfmt).
    mutating func read(_ line: [UInt8]) -> SessionFigures? {
        guard line.starts(with: Self.prefix) else { return nil }
        var fields = FieldScanner(line, from: Self.prefix.count)
        guard let first = fields.next(), first.key.elementsEqual(Self.name) else {
            return Self.slowly(line)
        }
        // Taken out of `memory` (each is recalled once), not copied.
        let previous = recall(first.value).map { take(at: $0) }
        if let previous, previous.line == line {
            reading.append(previous)
            return previous.figures
        }
        var figures = SessionFigures(name: previous?.figures.name ?? String(decoding: first.value, as: UTF8.self))
        // The daemon writes the fields in the same order every time: the
        // last line's fields are read beside this one's, and a value that
        // has not changed is taken from last time's figures.
        var before = previous.map { FieldScanner($0.line, from: Self.prefix.count) }
        _ = before?.next()
        while let field = fields.next() {
            let old = before?.next()
            let isSame = old.map { $0.key.elementsEqual(field.key) && $0.value.elementsEqual(field.value) } ?? false
            read(field, into: &figures, from: isSame ? previous?.figures : nil)
        }
        guard fields.isWellFormed else { return nil }
        reading.append(Memory(line: line, figures: figures))
        return figures
    }

    /// Sets the figure `field` gives, from `same` (last time's figures,
    /// when the field's text has not changed) or read from its text.
    private func read(
        _ field: (key: ArraySlice<UInt8>, value: ArraySlice<UInt8>), into figures: inout SessionFigures,
        from same: SessionFigures?
    ) {
        let (key, value) = field
        switch key.count {
        case 4 where key.elementsEqual(Self.best):
            figures.best = same?.best ?? String(decoding: value, as: UTF8.self)
        case 4 where key.elementsEqual(Self.hits):
            figures.hits = Self.number(value)
        case 4 where key.elementsEqual(Self.name):
            figures.name = String(decoding: value, as: UTF8.self)
        case 5 where key.elementsEqual(Self.state):
            figures.isRunning = value.elementsEqual(Self.running)
        case 5 where key.elementsEqual(Self.typed):
            figures.typed = Self.number(value)
        case 6 where key.elementsEqual(Self.target):
            figures.target = same?.target ?? String(decoding: value, as: UTF8.self)
        case 6 where key.elementsEqual(Self.chance):
            figures.chance = same.map(\.chance) ?? WideNumber(parsing: String(decoding: value, as: UTF8.self))
        case 7 where key.elementsEqual(Self.monkeys):
            figures.monkeys =
                Self.isNumber(value) && value.count <= 18
                ? Int(Self.number(value)) : Int(String(decoding: value, as: UTF8.self)) ?? 0
        case 7 where key.elementsEqual(Self.entries):
            figures.entries = Self.number(value)
        case 8 where key.elementsEqual(Self.interval):
            if let same {
                figures.interval = same.interval
                figures.intervalSeconds = same.intervalSeconds
            } else {
                figures.interval = String(decoding: value, as: UTF8.self)
                figures.intervalSeconds = Interval(parsing: figures.interval).map { Double($0.nanoseconds) / 1e9 }
            }
        case 8 where key.elementsEqual(Self.alphabet):
            figures.alphabet = same?.alphabet ?? String(decoding: value, as: UTF8.self)
        case 6 where key.elementsEqual(Self.corpus):
            figures.corpus = same?.corpus ?? String(decoding: value, as: UTF8.self)
        case 8 where key.elementsEqual(Self.coverage):
            figures.coverage = same.map(\.coverage) ?? WideNumber(parsing: String(decoding: value, as: UTF8.self))
        case 11 where key.elementsEqual(Self.longestRun):
            figures.longestRun = Self.number(value)
        case 16 where key.elementsEqual(Self.expectedEntries):
            figures.expectedEntries =
                same.map(\.expectedEntries) ?? WideNumber(parsing: String(decoding: value, as: UTF8.self))
        case 16 where key.elementsEqual(Self.expectedSeconds):
            figures.expectedSeconds =
                same.map(\.expectedSeconds) ?? WideNumber(parsing: String(decoding: value, as: UTF8.self))
        default:
            break
        }
    }

    /// Where the session named `name` is in `memory`: the daemon lists
    /// sessions in the same order every time, so it is nearly always the
    /// next one, or a few further on (sessions deleted meanwhile); a
    /// session new since then sorts before it. Only a listing in another
    /// order needs the index.
    private mutating func recall(_ name: ArraySlice<UInt8>) -> Int? {
        let end = min(memory.count, cursor + 4)
        for probe in cursor..<end where memory[probe].figures.name.utf8.elementsEqual(name) {
            cursor = probe + 1
            return probe
        }
        if cursor < memory.count, name.lexicographicallyPrecedes(memory[cursor].figures.name.utf8) { return nil }
        if memoryIndex == nil {
            var index: [String: Int] = [:]
            index.reserveCapacity(memory.count)
            for position in memory.indices { index[memory[position].figures.name] = position }
            memoryIndex = index
        }
        guard let found = memoryIndex?[String(decoding: name, as: UTF8.self)] else { return nil }
        cursor = found + 1
        return found
    }

    private mutating func take(at position: Int) -> Memory {
        var taken = Memory(line: [], figures: Self.nobody)
        swap(&taken, &memory[position])
        return taken
    }

    private static let nobody = SessionFigures(name: "")

    /// The STATUS was answered: sessions it did not list are forgotten.
    mutating func finish() {
        memory = reading
        reading = []
        reading.reserveCapacity(memory.count)
        cursor = 0
        memoryIndex = nil
    }

    /// The connection went: what comes next is another daemon's.
    mutating func forget() {
        memory = []
        reading = []
        cursor = 0
        memoryIndex = nil
    }

    /// A line whose first field is not `name`: never the daemon's, read the general way.
    private static func slowly(_ line: [UInt8]) -> SessionFigures? {
        guard let record = try? ResponseDecoder.record(String(decoding: line, as: UTF8.self)) else { return nil }
        return SessionFigures(record)
    }

    private static func isNumber(_ value: ArraySlice<UInt8>) -> Bool {
        !value.isEmpty && value.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// A whole number as `UInt64(_:)` reads it: 0 when it is not one or overflows.
    private static func number(_ value: ArraySlice<UInt8>) -> UInt64 {
        guard isNumber(value) else { return UInt64(String(decoding: value, as: UTF8.self)) ?? 0 }
        var result: UInt64 = 0
        for digit in value {
            let (times, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit - 0x30))
            if overflow || carry { return 0 }
            result = sum
        }
        return result
    }

    private static let prefix = Array("session ".utf8)
    private static let name = Array("name".utf8)
    private static let state = Array("state".utf8)
    private static let running = Array("running".utf8)
    private static let monkeys = Array("monkeys".utf8)
    private static let interval = Array("interval".utf8)
    private static let alphabet = Array("alphabet".utf8)
    private static let target = Array("target".utf8)
    private static let typed = Array("typed".utf8)
    private static let entries = Array("entries".utf8)
    private static let hits = Array("hits".utf8)
    private static let best = Array("best".utf8)
    private static let expectedEntries = Array("expected_entries".utf8)
    private static let expectedSeconds = Array("expected_seconds".utf8)
    private static let chance = Array("chance".utf8)
    private static let corpus = Array("corpus".utf8)
    private static let coverage = Array("coverage".utf8)
    private static let longestRun = Array("longest_run".utf8)
}
