/// Writes metric families in the Prometheus text exposition format,
/// version 0.0.4: `# HELP` and `# TYPE` lines, then one line per sample.
/// No line begins with `OK` or `ERR`, so the lines can be a response's
/// data lines (METRICS) as they are.
public enum Exposition {
    /// The HTTP content type of this format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The family's `# HELP` and `# TYPE` lines, then its samples.
    public static func append(_ family: MetricFamily, to output: inout [UInt8]) {
        appendHeader(family, to: &output)
        for sample in family.samples { append(sample, of: family.name, to: &output) }
    }

    /// The family's `# HELP` and `# TYPE` lines, for samples that follow.
    public static func appendHeader(_ family: MetricFamily, to output: inout [UInt8]) {
        output.append(contentsOf: "# HELP \(family.name) ".utf8)
        appendEscaped(family.help, quotes: false, to: &output)
        output.append(contentsOf: "\n# TYPE \(family.name) \(family.kind.rawValue)\n".utf8)
    }

    /// One sample line of the family named `name`.
    public static func append(_ sample: MetricSample, of name: String, to output: inout [UInt8]) {
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: sample.suffix.utf8)
        if !sample.labels.isEmpty {
            output.append(UInt8(ascii: "{"))
            for (index, label) in sample.labels.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: label.name.utf8)
                output.append(contentsOf: "=\"".utf8)
                appendEscaped(label.value, quotes: true, to: &output)
                output.append(UInt8(ascii: "\""))
            }
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: " "))
        appendNumber(sample.value, to: &output)
        output.append(0x0A)
    }

    /// One sample line with a single label, written straight into `output`
    /// (no sample built): what METRICS writes for every session and family.
    public static func append(
        _ value: Double, of name: String, label: String, _ labelValue: String, to output: inout [UInt8]
    ) {
        output.append(contentsOf: name.utf8)
        output.append(UInt8(ascii: "{"))
        output.append(contentsOf: label.utf8)
        output.append(contentsOf: "=\"".utf8)
        appendEscaped(labelValue, quotes: true, to: &output)
        output.append(contentsOf: "\"} ".utf8)
        appendNumber(value, to: &output)
        output.append(0x0A)
    }

    /// One sample of a per-session family: `name{session="NAME"} value`.
    /// A session name never needs escaping (see `SessionName`).
    static func appendSessionSample(_ value: Double, of name: String, session: SessionName, to output: inout [UInt8]) {
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: "{session=\"".utf8)
        output.append(contentsOf: session.text.utf8)
        output.append(contentsOf: "\"} ".utf8)
        appendNumber(value, to: &output)
        output.append(0x0A)
    }

    /// `number(value)`, with whole numbers written digit by digit rather
    /// than through a string.
    static func appendNumber(_ value: Double, to output: inout [UInt8]) {
        guard value == value.rounded(), value >= 0, value < 9.007_199_254_740_992e15 else {
            output.append(contentsOf: number(value).utf8)
            return
        }
        var whole = UInt64(value)
        var digits: (UInt64, UInt64) = (0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[15 - count] = UInt8(ascii: "0") + UInt8(whole % 10)
                whole /= 10
                count += 1
            } while whole > 0
            output.append(contentsOf: buffer[(16 - count)...])
        }
    }

    /// A value as Prometheus reads it: whole numbers without a fraction,
    /// `+Inf`, `-Inf` and `NaN` spelled so.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Help text escapes `\` and line feeds; label values also `"`.
    private static func appendEscaped(_ text: String, quotes: Bool, to output: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case 0x0A: output.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\"") where quotes: output.append(contentsOf: "\\\"".utf8)
            default: output.append(byte)
            }
        }
    }
}
