extension Event {
    /// The sentence an operator reads (the journal's `MESSAGE`).
    public var message: String {
        var bytes: [UInt8] = []
        appendMessage(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the sentence, made from the kind and the fields: every
    /// change makes an event, and only the sink that writes it needs its
    /// sentence, as bytes, so none is built as a string on the way.
    public func appendMessage<Output: ByteOutput>(to output: inout Output) {
        // Appended where it lies: a copy of the optional name costs more than the name.
        func appendName() { if let session { output.appendUTF8(session.text) } }
        switch kind {
        case .start:
            output.appendLiteral(value(of: "created") == "yes" ? "created and started session " : "started session ")
            appendName()
            output.appendLiteral(": ")
            appendValue(of: "monkeys", to: &output)
            output.appendLiteral(" monkeys every ")
            appendValue(of: "interval", to: &output)
        case .stop:
            output.appendLiteral("stopped session ")
            appendName()
            output.appendLiteral(" after ")
            appendValue(of: "typed", to: &output)
            output.appendLiteral(" entries")
        case .set:
            output.appendLiteral("changed session ")
            appendName()
            output.appendLiteral(":")
            // By index, as below: a loop over the elements copies each field.
            for index in fields.indices where fields[index].key != "warning" {
                output.appendLiteral(" ")
                output.appendUTF8(fields[index].key)
                output.appendLiteral("=")
                output.appendUTF8(fields[index].value)
            }
        case .clear:
            output.appendLiteral("cleared session ")
            appendName()
            output.appendLiteral(" (")
            appendValue(of: "entries", to: &output)
            output.appendLiteral(" entries removed)")
        case .delete:
            output.appendLiteral("deleted session ")
            appendName()
        case .hit:
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" typed its target in ")
            appendEntry(to: &output)
        case .best:
            output.appendLiteral("session ")
            appendName()
            output.appendLiteral(" came closer to its target: \"")
            appendValue(of: "best", to: &output)
            output.appendLiteral("\" in ")
            appendEntry(to: &output)
        case .restore:
            output.appendLiteral("restored session ")
            appendName()
            output.appendLiteral(value(of: "state") == "running" ? " (typing, " : " (stopped, ")
            appendValue(of: "entries", to: &output)
            output.appendLiteral(" entries)")
        case .reload:
            output.appendLiteral("reloaded the configuration from ")
            appendValue(of: "config", to: &output)
        case .typed:
            appendName()
            output.appendLiteral(": ")
            appendValue(of: "number", to: &output)
            output.appendLiteral(". ")
            appendValue(of: "text", to: &output)
        }
    }

    /// `entry 7 (id 42)`: the entry a hit or best progress was typed in.
    private func appendEntry<Output: ByteOutput>(to output: inout Output) {
        output.appendLiteral("entry ")
        appendValue(of: "number", to: &output)
        output.appendLiteral(" (id ")
        appendValue(of: "id", to: &output)
        output.appendLiteral(")")
    }

    /// The readable form of the event, for stderr when no journal listens:
    /// `monkeyd: start: <sentence> [key=value ... peer_uid=0 peer_pid=1]`.
    public func appendLogLine(to buffer: ByteBuffer) {
        var output = buffer
        output.appendLiteral(logLinePrefix)
        appendMessage(to: &output)
        if !fields.isEmpty || peer != nil {
            output.appendLiteral(" [")
            for index in fields.indices {
                if index > 0 { output.append(0x20) }
                output.appendUTF8(fields[index].key)
                output.append(0x3D)
                ResponseEncoder.appendValue(fields[index].value, to: &output)
            }
            if let peer {
                output.appendLiteral(fields.isEmpty ? "peer_uid=" : " peer_uid=")
                ResponseEncoder.appendDecimal(UInt64(peer.uid), to: &output)
                output.appendLiteral(" peer_pid=")
                ResponseEncoder.appendDecimal(UInt64(max(peer.pid, 0)), to: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
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
        }
    }

    /// A field's value in a sentence: nothing when the event lacks it.
    private func appendValue<Output: ByteOutput>(of key: String, to output: inout Output) {
        if let value = value(of: key) { output.appendUTF8(value) }
    }
}
