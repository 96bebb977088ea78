import MonkeyCore
import MonkeyShell

/// Carries out one `Invocation`: what needs no daemon (help, `odds`,
/// `replay`), or one request to monkeyd and its response printed as text or
/// JSON Lines.
struct Runner {
    let invocation: Invocation
    /// Where the daemon is: one, or for `status -H A -H B` one per host.
    let connectors: [Connector]
    let console: Console
    var formatter: HumanFormatter
    /// The variables `top` consults (`TERM`).
    var environment: [String: String] = [:]

    mutating func run() throws(ControlFailure) {
        let command = invocation.command
        if runLocally(command) { return }
        if case .corpusOdds(let question) = command {
            let path = CorpusOddsReport.directory(of: question.corpus, environment: environment)
            let corpus: Corpus
            do {
                corpus = try CorpusOddsReport.read(path, question)
            } catch {
                throw .daemon(code: error.protocolError.code.rawValue, message: error.message)
            }
            let figures = CorpusOddsReport.figures(question, corpus)
            console.print(invocation.isJSON ? CorpusOddsReport.json(figures) : CorpusOddsReport.human(figures))
            return
        }
        if case .top(let once, let delay) = command {
            try top(once: once, delay: delay)
            return
        }
        if case .bridge = command, case .socket(let socketPath) = connector {
            var bridge = try Bridge(socketPath: socketPath)
            try bridge.run()
            return
        }
        guard let request = RequestLine.request(for: command) else { return }
        if connectors.count > 1 {
            if case .coverage(let session, let work) = command {
                // A work's text is one host's: the union is the works' table.
                guard work == nil else {
                    throw .usage(UsageError("'coverage --work' takes one host, not several"))
                }
                try coverageOfHosts(session)
            } else {
                try statusOfHosts(request)
            }
            return
        }
        let link = try connector.connect()
        do {
            try converse(command, request, on: link.connection)
        } catch {
            throw link.explained(error)
        }
        for line in link.close() { console.printError(Visible.escaped(line)) }
    }

    /// The one daemon (the first when several are named).
    var connector: Connector { connectors[0] }

    private mutating func converse(_ command: Command, _ request: String, on connection: ClientConnection)
        throws(ControlFailure)
    {
        if let sessions = command.sessionsShown { formatter.prefix = try prefix(for: sessions, on: connection) }
        if case .wait(let session, let condition, _) = command {
            try warnIfEndless(session: session, condition: condition, on: connection)
        }
        switch command {
        case .tail(_, _, follow: true), .events(_, _, follow: true):
            try follow(request, on: connection)
            return
        case .events:
            // The retained events, then the empty line ends the stream.
            try send(request + "\n", on: connection)
        case .metrics:
            try send(request, on: connection)
            try printMetrics(from: connection)
            return
        case .corpora where !invocation.isJSON:
            try send(request, on: connection)
            var records: [Record] = []
            _ = try readResponse(from: connection) { records.append($0) }
            let lines = CoverageReport.corpora(records)
            for line in lines.count > 1 ? lines : ["no corpora"] { console.print(line) }
            return
        case .coverage(_, let work) where !invocation.isJSON:
            try send(request, on: connection)
            var records: [Record] = []
            _ = try readResponse(from: connection) { records.append($0) }
            if work == nil {
                for line in CoverageReport.table(records) { console.print(line) }
            } else {
                console.print(CoverageReport.text(records, usesColor: formatter.usesColor))
            }
            return
        default:
            try send(request, on: connection)
        }
        var recordCount = 0
        let message = try readResponse(from: connection) { record in
            recordCount += 1
            emit(record)
        }
        finish(command, message: message, recordCount: recordCount)
    }

    /// The prefix of each line of several sessions' entries: their names
    /// padded to the longest (of those named, and those the globs match
    /// now, asked with STATUS), each in a colour of its own on a terminal.
    private func prefix(for sessions: [String], on connection: ClientConnection) throws(ControlFailure)
        -> SessionPrefix?
    {
        guard sessions.count > 1 || sessions.contains(where: { SessionPattern($0)?.isGlob == true }) else { return nil }
        var names = sessions.filter { SessionPattern($0)?.isGlob != true }
        let globs = sessions.compactMap { SessionPattern($0) }.filter(\.isGlob)
        if !globs.isEmpty {
            try send("STATUS", on: connection)
            _ = try readResponse(from: connection) { record in
                if let name = record.value("name"), let session = SessionName(name),
                    globs.contains(where: { $0.matches(session) })
                {
                    names.append(name)
                }
            }
        }
        return SessionPrefix(width: names.map(\.count).max() ?? 0)
    }

    /// Before a WAIT: the session's STATUS, and a warning on stderr when the
    /// condition cannot come true as the session is (`WaitWarning`). A
    /// missing session is the error the WAIT would have given.
    private func warnIfEndless(session: String, condition: String, on connection: ClientConnection)
        throws(ControlFailure)
    {
        try send(RequestEncoder.line(.status, words: [session]), on: connection)
        var status: Record?
        _ = try readResponse(from: connection) { record in
            if record.type == "session" { status = record }
        }
        guard let status, let reason = WaitWarning.reason(condition: condition, session: status) else { return }
        console.printError("monkeyctl: warning: this wait may never end: \(reason)")
    }

    func send(_ request: String, on connection: ClientConnection) throws(ControlFailure) {
        do {
            try connection.send(line: request)
        } catch {
            throw .connectionLost(reason: "could not send the request: \(error.reason)")
        }
    }

    /// Reads data lines until the status line; returns the text of `OK`.
    func readResponse(from connection: ClientConnection, _ handle: (Record) -> Void) throws(ControlFailure)
        -> String?
    {
        while true {
            let line: String?
            do {
                line = try connection.readLine()
            } catch {
                throw .connectionLost(reason: error.reason)
            }
            switch try Self.decode(line) {
            case .record(let record): handle(record)
            case .ok(let message): return message
            }
        }
    }

    /// METRICS: its data lines are the Prometheus text format, not
    /// records; printed as they come, or as JSON Lines of samples. Any line
    /// that begins with `OK` or `ERR` is the status line (no data line does).
    private func printMetrics(from connection: ClientConnection) throws(ControlFailure) {
        var sampleTypes = MetricsJSON()
        while true {
            let line: String?
            do {
                line = try connection.readLine()
            } catch {
                throw .connectionLost(reason: error.reason)
            }
            guard let line, !line.hasPrefix("OK"), !line.hasPrefix("ERR") else {
                _ = try Self.decode(line)
                return
            }
            guard invocation.isJSON else {
                console.print(line)
                continue
            }
            guard let object = try sampleTypes.object(for: line) else { continue }
            console.print(object)
        }
    }

    enum Reply {
        case record(Record)
        case ok(String?)
    }

    /// One line of the response; `ERR` is thrown, as is a line that cannot be read.
    static func decode(_ line: String?) throws(ControlFailure) -> Reply {
        guard let line else { throw .connectionLost(reason: "monkeyd closed the connection before its answer ended") }
        let decoded: ResponseLine
        do {
            decoded = try ResponseDecoder.decode(line)
        } catch {
            throw .malformedReply(line: line)
        }
        switch decoded {
        case .record(let record): return .record(record)
        case .status(.ok(let message)): return .ok(message)
        case .status(.error(let error)):
            throw .daemon(code: rawErrorCode(line) ?? error.code.rawValue, message: error.message)
        }
    }

    /// The code word of an `ERR` line as sent, which may be one this client
    /// does not know yet (the decoder maps those to `internal`).
    private static func rawErrorCode(_ line: String) -> String? {
        line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).dropFirst().first.map(String.init)
    }

    func emit(_ record: Record) {
        console.print(invocation.isJSON ? JSONLines.object(record) : formatter.line(for: record))
    }

    /// What follows the records: the daemon's `OK` text for commands whose
    /// answer it is, and nothing for listings.
    func finish(_ command: Command, message: String?, recordCount: Int) {
        switch command {
        // WAIT answers with the session's status record, which says it all.
        case .status, .log, .tail, .events, .wait, .coverage, .corpora:
            if case .status = command, recordCount == 0, !invocation.isJSON { console.print("no sessions") }
        case .hello(let showsClientVersion):
            if invocation.isJSON {
                let extra = showsClientVersion ? [(key: "client", value: Engine.version)] : []
                console.print(JSONLines.success(message, extra: extra))
            } else {
                if showsClientVersion { console.print("monkeyctl \(Engine.version)") }
                console.print(Visible.escaped(message ?? ""))
            }
        default:
            // START and SET say so when the target can never be typed: a warning, not an error.
            let (text, warning) = Self.splitWarning(message)
            if invocation.isJSON {
                console.print(JSONLines.success(text, extra: warning.map { [("warning", $0)] } ?? []))
            } else if let text {
                console.print(Visible.escaped(text))
            }
            if let warning { console.printError("monkeyctl: warning: \(Visible.escaped(warning))") }
        }
    }

    /// An OK text `started s; warning: ...` as its two parts.
    static func splitWarning(_ message: String?) -> (text: String?, warning: String?) {
        guard let message, let range = message.firstRange(of: "; warning: ") else { return (message, nil) }
        return (String(message[..<range.lowerBound]), String(message[range.upperBound...]))
    }
}
