import MonkeyCore

/// `monkeyctl metrics --json`: one object per sample,
/// `{"name":...,"type":...,"labels":{...},"value":...}`, the type taken
/// from the family's `# TYPE` line (`untyped` without one); values are
/// JSON numbers, or the strings `"+Inf"`, `"-Inf"` and `"NaN"`, which JSON
/// has no numbers for. Comments give no object.
struct MetricsJSON {
    /// The family of the last `# TYPE` line, and its type.
    private var family: (name: String, kind: String)?

    /// The object for one line of the exposition, or nil for a comment;
    /// a line that is not the format is a malformed reply.
    mutating func object(for line: String) throws(ControlFailure) -> String? {
        let parsed: ExpositionLine
        do {
            parsed = try ExpositionLine.parse(line)
        } catch {
            throw .malformedReply(line: line)
        }
        switch parsed {
        case .type(let name, let kind):
            family = (name, kind)
            return nil
        case .help, .comment:
            return nil
        case .sample(let sample):
            let labels = sample.labels.map { JSONLines.string($0.name) + ":" + JSONLines.string($0.value) }
            return "{\"name\":\(JSONLines.string(sample.name)),\"type\":\(JSONLines.string(kind(of: sample.name))),"
                + "\"labels\":{\(labels.joined(separator: ","))},\"value\":\(Self.number(sample))}"
        }
    }

    /// The type of the family a sample belongs to: its own name, or a
    /// histogram's or summary's with a part's suffix.
    private func kind(of name: String) -> String {
        guard let family else { return "untyped" }
        if name == family.name { return family.kind }
        let suffixes = family.kind == "histogram" ? ["_bucket", "_sum", "_count"] : ["_sum", "_count"]
        return suffixes.contains { name == family.name + $0 } ? family.kind : "untyped"
    }

    static func number(_ sample: ExpositionSample) -> String {
        guard sample.value.isFinite else {
            return JSONLines.string(sample.valueText == "Inf" ? "+Inf" : sample.valueText)
        }
        return isJSONNumber(sample.valueText) ? sample.valueText : String(sample.value)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    static func isJSONNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let first = bytes.first
        let whole = digits()
        guard whole > 0, whole == 1 || first != 0x30 else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
