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
    public func appendMessage(to output: inout [UInt8]) {
        let name = session?.text ?? ""
        switch kind {
        case .start:
            output.put(value(of: "created") == "yes" ? "created and started session " : "started session ")
            output.put(name)
            output.put(": ")
            output.put(value(of: "monkeys"))
            output.put(" monkeys every ")
            output.put(value(of: "interval"))
        case .stop:
            output.put("stopped session ")
            output.put(name)
            output.put(" after ")
            output.put(value(of: "typed"))
            output.put(" entries")
        case .set:
            output.put("changed session ")
            output.put(name)
            output.put(":")
            for field in fields where field.key != "warning" {
                output.put(" ")
                output.put(field.key)
                output.put("=")
                output.put(field.value)
            }
        case .clear:
            output.put("cleared session ")
            output.put(name)
            output.put(" (")
            output.put(value(of: "entries"))
            output.put(" entries removed)")
        case .delete:
            output.put("deleted session ")
            output.put(name)
        case .hit:
            output.put("session ")
            output.put(name)
            output.put(" typed its target in entry ")
            output.put(value(of: "number"))
            output.put(" (id ")
            output.put(value(of: "id"))
            output.put(")")
        case .best:
            output.put("session ")
            output.put(name)
            output.put(" came closer to its target: \"")
            output.put(value(of: "best"))
            output.put("\" in entry ")
            output.put(value(of: "number"))
            output.put(" (id ")
            output.put(value(of: "id"))
            output.put(")")
        case .restore:
            output.put("restored session ")
            output.put(name)
            output.put(value(of: "state") == "running" ? " (typing, " : " (stopped, ")
            output.put(value(of: "entries"))
            output.put(" entries)")
        case .reload:
            output.put("reloaded the configuration from ")
            output.put(value(of: "config"))
        case .typed:
            output.put(name)
            output.put(": ")
            output.put(value(of: "number"))
            output.put(". ")
            output.put(value(of: "text"))
        }
    }

    /// The value of one of the event's fields; empty when it has none.
    public func value(of key: String) -> String {
        fields.first { $0.key == key }?.value ?? ""
    }
}

extension [UInt8] {
    fileprivate mutating func put(_ text: String) {
        append(contentsOf: text.utf8)
    }
}
