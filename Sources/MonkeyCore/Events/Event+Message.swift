extension Event {
    /// The sentence an operator reads (the journal's `MESSAGE`).
    public var message: String {
        let buffer = ByteBuffer(capacity: 128)
        appendMessage(to: buffer)
        return buffer.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes the sentence, made from what happened: every change makes
    /// an event, and only the sink that writes it needs its sentence, as
    /// bytes, so none is built as a string on the way.
    public func appendMessage(to buffer: ByteBuffer) {
        var output = buffer
        // Appended where it lies: a copy of the optional name costs more than the name.
        func appendName() { if let session { output.appendUTF8(session.text) } }
        switch payload {
        case .started(let start):
            output.appendLiteral(start.created ? "created and started session " : "started session ")
            appendName()
            output.appendLiteral(": ")
            ResponseEncoder.appendDecimal(UInt64(start.settings.monkeys), to: &output)
            if start.settings.interval == .flatOut {
                output.appendLiteral(" monkeys flat out")
            } else {
                output.appendLiteral(" monkeys every ")
                output.appendUTF8(start.settings.interval.description)
            }
        case .stopped(let typed):
            output.appendLiteral("stopped session ")
            appendName()
            output.appendLiteral(" after ")
            ResponseEncoder.appendDecimal(typed, to: &output)
            output.appendLiteral(" entries")
        case .updated(let update):
            output.appendLiteral("changed session ")
            appendName()
            output.appendLiteral(":")
            var fields = ListFields(output: buffer, isBracketed: false)
            Self.writeChange(of: update, to: &fields)
        case .cleared(let removed, _):
            output.appendLiteral("cleared session ")
            appendName()
            output.appendLiteral(" (")
            ResponseEncoder.appendDecimal(UInt64(removed), to: &output)
            output.appendLiteral(" entries removed)")
        case .deleted:
            output.appendLiteral("deleted session ")
            appendName()
        case .hit(let entry, _):
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" typed its target in ")
            Self.appendEntry(number: entry.number, id: entry.id, to: &output)
        case .covering(let entry, let newlyCovered):
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" covered ")
            ResponseEncoder.appendDecimal(UInt64(newlyCovered), to: &output)
            output.appendLiteral(newlyCovered == 1 ? " new character in " : " new characters in ")
            Self.appendEntry(number: entry.number, id: entry.id, to: &output)
        case .covered(let work):
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" covered all of work ")
            output.appendUTF8(work)
        case .coverage(let percent):
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" covered ")
            ResponseEncoder.appendDecimal(UInt64(percent), to: &output)
            output.appendLiteral("% of its corpus")
        case .best(let progress):
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" came closer to its target: \"")
            output.appendUTF8(progress.best)
            output.appendLiteral("\" in ")
            Self.appendEntry(number: progress.number, id: progress.entryID, to: &output)
        case .restored(let restored):
            output.appendLiteral("restored session ")
            appendName()
            output.appendLiteral(restored.isTyping ? " (typing, " : " (stopped, ")
            ResponseEncoder.appendDecimal(UInt64(restored.entries), to: &output)
            output.appendLiteral(" entries)")
        case .reloaded(let configuration):
            output.appendLiteral("reloaded the configuration from ")
            output.appendUTF8(configuration)
        case .typed(let entry):
            appendName()
            output.appendLiteral(": ")
            ResponseEncoder.appendDecimal(entry.number, to: &output)
            output.appendLiteral(". ")
            output.appendUTF8(entry.text)
        }
    }

    /// `entry 7 (id 42)`: the entry a hit or best progress was typed in.
    private static func appendEntry<Output: ByteOutput>(number: UInt64, id: UInt64, to output: inout Output) {
        output.appendLiteral("entry ")
        ResponseEncoder.appendDecimal(number, to: &output)
        output.appendLiteral(" (id ")
        ResponseEncoder.appendDecimal(id, to: &output)
        output.appendLiteral(")")
    }

    /// The readable form of the event, for stderr when no journal listens:
    /// `monkeyd: start: <sentence> [key=value ... peer_uid=0 peer_pid=1]`.
    public func appendLogLine(to buffer: ByteBuffer) {
        let output = buffer
        output.appendLiteral(logLinePrefix)
        appendMessage(to: buffer)
        var fields = ListFields(output: buffer, isBracketed: true)
        writeFields(to: &fields)
        if let peer {
            fields.write("peer_uid", decimal: UInt64(peer.uid))
            fields.write("peer_pid", decimal: UInt64(max(peer.pid, 0)))
        }
        if !fields.isFirst { output.append(UInt8(ascii: "]")) }
        output.append(0x0A)
    }

    /// `monkeyd: <kind>: `, in one piece.
    private var logLinePrefix: StaticString {
        switch kind {
        case .start: "monkeyd: start: "
        case .stop: "monkeyd: stop: "
        case .set: "monkeyd: set: "
        case .clear: "monkeyd: clear: "
        case .delete: "monkeyd: delete: "
        case .hit: "monkeyd: hit: "
        case .best: "monkeyd: best: "
        case .restore: "monkeyd: restore: "
        case .reload: "monkeyd: reload: "
        case .typed: "monkeyd: typed: "
        case .covered: "monkeyd: covered: "
        case .coverage: "monkeyd: coverage: "
        }
    }
}

/// Fields after a sentence: those a SET named, within the sentence, as
/// given (` key=value`); or the list in brackets after the stderr line's
/// sentence (` [` first, blanks between, values quoted as in a data line),
/// which the caller closes unless it stayed empty (`isFirst`).
private struct ListFields: FieldWriter {
    let output: ByteBuffer
    let isBracketed: Bool
    private(set) var isFirst = true

    init(output: ByteBuffer, isBracketed: Bool) {
        self.output = output
        self.isBracketed = isBracketed
    }

    mutating func write(_ key: StaticString, _ value: String) {
        separate()
        output.appendLiteral(key)
        appendValue(value)
    }

    mutating func write(_ key: StaticString, decimal value: UInt64) {
        separate()
        output.appendLiteral(key)
        output.append(0x3D)
        output.appendDecimal(value)
    }

    mutating func write(key: String, _ value: String) {
        separate()
        output.appendUTF8(key)
        appendValue(value)
    }

    private mutating func separate() {
        if isBracketed && isFirst {
            output.appendLiteral(" [")
        } else {
            output.append(0x20)
        }
        isFirst = false
    }

    /// `=` and the value.
    private func appendValue(_ value: String) {
        output.append(0x3D)
        guard isBracketed else { return output.appendUTF8(value) }
        var output = output
        ResponseEncoder.appendValue(value, to: &output)
    }
}
