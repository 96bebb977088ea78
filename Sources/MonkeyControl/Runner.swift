import MonkeyCore
import MonkeyShell

/// Carries out one `Invocation`: what needs no daemon (help, `odds`,
/// `replay`), or one request to monkeyd and its response printed as text or
/// JSON Lines.
struct Runner {
    let invocation: Invocation
    let socketPath: String
    let console: Console
    let formatter: HumanFormatter
    /// The variables `top` consults (`TERM`).
    var environment: [String: String] = [:]

    func run() throws(ControlFailure) {
        let command = invocation.command
        if runLocally(command) { return }
        if case .top(let once) = command {
            try top(once: once)
            return
        }
        guard let request = RequestLine.request(for: command) else { return }
        let connection = try connect()
        if case .tail(_, _, follow: true) = command {
            try follow(request, on: connection)
            return
        }
        try send(request, on: connection)
        var recordCount = 0
        let message = try readResponse(from: connection) { record in
            recordCount += 1
            emit(record)
        }
        finish(command, message: message, recordCount: recordCount)
    }

    private func connect() throws(ControlFailure) -> ClientConnection {
        do {
            return try ClientConnection(path: socketPath)
        } catch {
            throw .unreachable(path: socketPath, error: error)
        }
    }

    func send(_ request: String, on connection: ClientConnection) throws(ControlFailure) {
        do {
            try connection.send(line: request)
        } catch {
            throw .connectionLost(reason: "could not send the request: \(error.reason)")
        }
    }

    /// Reads data lines until the status line; returns the text of `OK`.
    private func readResponse(from connection: ClientConnection, _ handle: (Record) -> Void) throws(ControlFailure)
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
    private func finish(_ command: Command, message: String?, recordCount: Int) {
        switch command {
        case .status, .log, .tail:
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
