import Testing

@testable import MonkeyCore

/// Reading the exposition back: what `monkeyctl metrics --json` relies on.
struct ExpositionLineTests {
    @Test func everythingTheWriterWritesReadsBack() throws {
        var output: [UInt8] = []
        let samples = [
            MetricSample(labels: [("a", "x\"y\\z\nw"), ("b", "")], value: 1.5),
            MetricSample(suffix: "_count", value: 7), MetricSample(value: .infinity), MetricSample(value: .nan),
            MetricSample(labels: [("le", "+Inf")], value: 5.69e-05),
        ]
        Exposition.append(MetricFamily("m_seconds", .histogram, help: "h \\ \"q\"\nx", samples: samples), to: &output)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(try ExpositionLine.parse(lines[0]) == .help(name: "m_seconds", text: "h \\ \"q\"\nx"))
        #expect(try ExpositionLine.parse(lines[1]) == .type(name: "m_seconds", kind: "histogram"))
        for (line, sample) in zip(lines.dropFirst(2), samples) {
            guard case .sample(let read) = try ExpositionLine.parse(line) else {
                Issue.record("not a sample: \(line)")
                continue
            }
            #expect(read.name == "m_seconds" + sample.suffix)
            #expect(read.labels.map(\.name) == sample.labels.map(\.name))
            #expect(read.labels.map(\.value) == sample.labels.map(\.value))
            #expect(read.value == sample.value || (read.value.isNaN && sample.value.isNaN))
        }
    }

    static let spellings: [(String, String, Double)] = [
        ("m 1", "m", 1.0), ("m{} 2", "m", 2), ("  m { a = \"1\" , } 3 1700000000000", "m", 3),
        ("a:b_c 1e3", "a:b_c", 1000), ("m -Inf", "m", -.infinity), ("m\t+4.5", "m", 4.5),
    ]

    @Test(arguments: spellings)
    func theFormatsOtherSpellingsAreRead(line: String, name: String, value: Double) throws {
        guard case .sample(let sample) = try ExpositionLine.parse(line) else {
            Issue.record("not a sample")
            return
        }
        #expect(sample.name == name && sample.value == value)
    }

    @Test(arguments: ["", "   ", "# a comment", "#", "# HELPx"])
    func commentsAreComments(line: String) throws {
        #expect(try ExpositionLine.parse(line) == .comment)
    }

    @Test(arguments: [
        "m", "m{", "m{a=1} 2", "m{a=\"1} 2", "m{a=\"\\x\"} 2", "1m 2", "m 1 2 3", "m abc", "m inf", "m 0x10",
        "m{1a=\"\"} 1", "# TYPE m bogus", "m{a=\"1\"}2", "{a=\"1\"} 2", "m +",
    ])
    func malformedLinesAreRefused(line: String) {
        #expect(throws: ExpositionLine.Malformed.self) { try ExpositionLine.parse(line) }
    }
}
