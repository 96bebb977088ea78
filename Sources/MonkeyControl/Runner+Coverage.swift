import MonkeyCore

extension Runner {
    /// `coverage SESSION -H A -H B`: `COVERAGE SESSION format=bitmap` on
    /// every host at once, their bits united (`CoverageUnion`) after
    /// checking that every host runs the first one's experiment, then one
    /// table: each work's characters covered on any host, and the total.
    /// A host that fails is reported and left out (the exit status says
    /// so); a host that differs is named, and nothing is printed.
    func coverageOfHosts(_ session: String) throws(ControlFailure) {
        let answers = answers(to: "COVERAGE \(session) format=bitmap")
        var union = CoverageUnion()
        var firstHost: String?
        var firstFailure: ControlFailure?
        var failed = 0
        var united: [String] = []
        for (connector, answer) in zip(connectors, answers) {
            let host = connector.place
            do throws(ControlFailure) {
                let records = try answer.get()
                let (identity, lines) = try Self.bitmap(records, host: host)
                do {
                    try union.add(identity, lines: lines)
                } catch {
                    throw Self.difference(error, host: host, first: firstHost ?? host)
                }
                if firstHost == nil { firstHost = host }
                united.append(host)
            } catch {
                if case .hostsDiffer = error { throw error }
                for line in Self.lines(of: error, host: host) { console.printError(line) }
                if firstFailure == nil { firstFailure = error }
                failed += 1
            }
        }
        if !united.isEmpty { printUnion(union, session: session, hosts: united) }
        if let firstFailure { throw .someHostsFailed(failed: failed, of: connectors.count, first: firstFailure) }
    }

    /// The identity and the lines of one host's bitmap answer.
    private static func bitmap(_ records: [Record], host: String) throws(ControlFailure) -> (
        CoverageUnion.Identity, [CoverageUnion.Line]
    ) {
        guard let header = records.first, header.type == "coverage", let digest = header.value("digest"),
            let chunk = header.value("chunk"), let characters = header.value("characters").flatMap({ Int($0) })
        else {
            throw .hostsDiffer(host: host, first: host, what: "its answer has no coverage header")
        }
        var lines: [CoverageUnion.Line] = []
        for record in records.dropFirst() where record.type == "bits" {
            guard let work = record.value("work"), let offset = record.value("offset").flatMap({ Int($0) }),
                let count = record.value("count").flatMap({ Int($0) }), let data = record.value("data")
            else {
                throw .malformedReply(line: ResponseEncoder.encode(record))
            }
            lines.append(CoverageUnion.Line(work: work, offset: offset, count: count, base64: data))
        }
        let identity = CoverageUnion.Identity(
            digest: digest, chunk: chunk, alphabet: header.value("alphabet"), characters: characters)
        return (identity, lines)
    }

    private static func difference(_ mismatch: CoverageUnion.Mismatch, host: String, first: String) -> ControlFailure {
        switch mismatch {
        case .differs(let field, let value, let firstValue):
            .hostsDiffer(host: host, first: first, what: "its \(field) is \(value), not \(firstValue)")
        case .badLine(let what):
            .hostsDiffer(host: host, first: first, what: "its bitmap does not fit: \(what)")
        }
    }

    /// The table of the union, or JSON Lines: a `work` object per work,
    /// then the `coverage` of all.
    private func printUnion(_ union: CoverageUnion, session: String, hosts: [String]) {
        let works = union.works
        func fraction(_ covered: Int, _ characters: Int) -> WideNumber {
            characters == 0 ? WideNumber(0) : WideNumber(Double(covered) / Double(characters))
        }
        if invocation.isJSON {
            for work in works {
                console.print(
                    JSONLines.object(
                        Record(
                            type: "work",
                            fields: [
                                ("name", work.name), ("chars", String(work.characters)),
                                ("covered", String(work.covered)),
                                (
                                    "coverage",
                                    ExpectedCoverage.text(
                                        ofFraction: fraction(work.covered, work.characters).doubleValue)
                                ),
                            ])))
            }
            console.print(
                JSONLines.object(
                    Record(
                        type: "coverage",
                        fields: [
                            ("session", session), ("hosts", hosts.joined(separator: " ")),
                            ("digest", union.identity?.digest ?? ""), ("characters", String(union.characters)),
                            ("covered", String(union.covered)),
                            (
                                "coverage",
                                ExpectedCoverage.text(ofFraction: fraction(union.covered, union.characters).doubleValue)
                            ),
                        ])))
            return
        }
        let rows =
            works.map { (Visible.escaped($0.name), $0.characters, $0.covered) }
            + [("all (\(hosts.count) \(hosts.count == 1 ? "host" : "hosts"))", union.characters, union.covered)]
        let nameWidth = max(4, rows.map(\.0.count).max() ?? 0)
        let numbers = rows.map { (HumanNumbers.count(UInt64($0.1)), HumanNumbers.count(UInt64($0.2))) }
        let charactersWidth = max(10, numbers.map(\.0.count).max() ?? 0)
        let coveredWidth = max(7, numbers.map(\.1.count).max() ?? 0)
        func padded(_ text: String, _ width: Int, right: Bool) -> String {
            let fill = String(repeating: " ", count: max(0, width - text.count))
            return right ? fill + text : text + fill
        }
        console.print(
            padded("WORK", nameWidth, right: false) + "  " + padded("CHARACTERS", charactersWidth, right: true) + "  "
                + padded("COVERED", coveredWidth, right: true) + "  COVERAGE")
        for (row, number) in zip(rows, numbers) {
            console.print(
                padded(row.0, nameWidth, right: false) + "  " + padded(number.0, charactersWidth, right: true) + "  "
                    + padded(number.1, coveredWidth, right: true) + "  "
                    + HumanNumbers.percent(fraction(row.2, row.1)))
        }
    }
}
