extension RequestParser {
    /// The change a well-formed plain line asks for (`CLEAR q`,
    /// `SET q monkeys=7`, `START q interval=1h`), read in one pass over its
    /// bytes with no tokens made: the lines a busy client sends most. Nil
    /// for anything else — another verb, a quote, a key other than
    /// `monkeys` or `interval`, a value out of range, a word too many — and
    /// the full path then gives the answer, refusals and their messages
    /// included. For every line it reads, it gives what the full path
    /// gives.
    static func plainChange(in bytes: UnsafeBufferPointer<UInt8>, limits: Limits) -> Request? {
        var words = PlainWords(bytes: bytes)
        guard let verbRange = words.next(), let verb = Verb(spelling: UnsafeBufferPointer(rebasing: bytes[verbRange])),
            verb.changesState,
            let nameRange = words.next(), let name = SessionName(bytes: UnsafeBufferPointer(rebasing: bytes[nameRange]))
        else { return nil }
        switch verb {
        case .stop, .clear, .delete:
            guard words.isAtPlainEnd() else { return nil }
            return verb == .stop ? .stop(name) : verb == .clear ? .clear(name) : .delete(name)
        case .start, .set:
            var change = SettingsChange()
            while let range = words.next() {
                guard let equals = bytes[range].firstIndex(of: UInt8(ascii: "=")) else { return nil }
                let key = UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<equals])
                let value = UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<range.upperBound])
                if Self.spells(key, "monkeys") {
                    guard change.monkeys == nil, let monkeys = Self.digits(value),
                        Self.monkeys(limits).contains(monkeys)
                    else { return nil }
                    change.monkeys = monkeys
                } else if Self.spells(key, "interval") {
                    guard change.interval == nil,
                        let interval = Self.interval(String(decoding: value, as: UTF8.self), limits)
                    else { return nil }
                    change.interval = interval
                } else {
                    return nil
                }
            }
            guard !words.isBroken else { return nil }
            if verb == .start { return .start(name, change) }
            return change.isEmpty ? nil : .set(name, change)
        default:
            return nil
        }
    }

    /// Compared byte by byte: `elementsEqual`, even of two buffers, takes
    /// the generic sequence path, about 200 instructions a key.
    private static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        word.withUTF8Buffer { spelled in
            guard spelled.count == bytes.count else { return false }
            for index in 0..<spelled.count where spelled[index] != bytes[index] { return false }
            return true
        }
    }
}

/// The words of a line of printable ASCII without quotes, as ranges of its
/// bytes, read in one pass: at any other byte the words end, and the line
/// is not plain (`isBroken`).
private struct PlainWords {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    private(set) var isBroken = false

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> Range<Int>? {
        while position < bytes.count && (bytes[position] == 0x20 || bytes[position] == 0x09) { position += 1 }
        guard position < bytes.count else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 { break }
            guard byte > 0x20 && byte < 0x7F && byte != 0x22 else {
                isBroken = true
                position = bytes.count
                return nil
            }
            position += 1
        }
        return start..<position
    }

    /// No word follows, and every byte was plain.
    mutating func isAtPlainEnd() -> Bool {
        next() == nil && !isBroken
    }
}
