import MonkeyCore

extension Runner {
    /// `status -H A -H B`: one request on a connection to each host, all
    /// sent before any answer is read, then one table, each line after its
    /// host (`host` first in JSON). A host that fails is reported on
    /// stderr, the others still shown, and the first failure is the exit
    /// status.
    func statusOfHosts(_ request: String) throws(ControlFailure) {
        let answers = answers(to: request)
        let width = connectors.map { Visible.escaped($0.place).count }.max() ?? 0
        var firstFailure: ControlFailure?
        var failed = 0
        for (connector, answer) in zip(connectors, answers) {
            let host = connector.place
            let name = Visible.escaped(host)
            let column = name + String(repeating: " ", count: width - name.count) + "  "
            do throws(ControlFailure) {
                let records = try answer.get()
                for var record in records {
                    guard invocation.isJSON else {
                        console.print(column + formatter.line(for: record))
                        continue
                    }
                    record.fields.insert((key: "host", value: host), at: 0)
                    console.print(JSONLines.object(record))
                }
                if records.isEmpty && !invocation.isJSON { console.print(column + "no sessions") }
            } catch {
                for line in Self.lines(of: error, host: host) { console.printError(line) }
                if firstFailure == nil { firstFailure = error }
                failed += 1
            }
            console.flush()
        }
        if let firstFailure { throw .someHostsFailed(failed: failed, of: connectors.count, first: firstFailure) }
    }

    /// A failure's lines on stderr, said of `host` (ssh's failures name it already).
    static func lines(of failure: ControlFailure, host: String) -> [String] {
        switch failure {
        case .hostUnreachable, .hostLost: return failure.messageLines
        default:
            let prefix = "monkeyctl: "
            return failure.messageLines.map {
                $0.hasPrefix(prefix) ? prefix + Visible.escaped(host) + ": " + $0.dropFirst(prefix.count) : $0
            }
        }
    }

    /// `request` sent to every host at once, then each answer read in
    /// order: its records, or why the host failed.
    func answers(to request: String) -> [Result<[Record], ControlFailure>] {
        let asked = connectors.map { connector in
            Result { () throws(ControlFailure) -> DaemonLink in try ask(connector, request) }
        }
        return asked.map { link in
            Result { () throws(ControlFailure) -> [Record] in try answer(on: link.get()) }
        }
    }

    private func ask(_ connector: Connector, _ request: String) throws(ControlFailure) -> DaemonLink {
        let link = try connector.connect()
        do {
            try send(request, on: link.connection)
        } catch {
            throw link.explained(error)
        }
        return link
    }

    /// The records of the answer; what ssh said on stderr passed on.
    private func answer(on link: DaemonLink) throws(ControlFailure) -> [Record] {
        var records: [Record] = []
        do {
            _ = try readResponse(from: link.connection) { records.append($0) }
        } catch {
            throw link.explained(error)
        }
        for line in link.close() { console.printError(Visible.escaped(line)) }
        return records
    }
}
