import MonkeyCore
import MonkeyShell

/// The metrics listener's connections: HTTP in the same event loop as the
/// control socket's, one request each (see `HTTPExchange`), bounded in
/// number (`max_metrics_clients`, see `acceptConnections`), in request size
/// (`HTTPRequestReader`), in pending output (`max_pending_output`, as
/// METRICS) and in time (`metrics_timeout`, through the idle timer).
extension Daemon {
    /// Feeds what the client sent to the request reader, and answers once
    /// the head is whole (or cannot be read); while draining, drops it.
    func handleHTTPInput(_ connection: Connection) {
        guard case .http(var exchange) = connection.phase else { return }
        switch exchange.stage {
        case .receiving(var reader):
            // The reader is moved out of the phase, so that feeding it does not copy its bytes.
            connection.phase = .closing
            var answer: MetricsEndpoint.Answer?
            connection.takePendingInput { bytes in
                do throws(HTTPRequestError) {
                    if let request = try reader.receive(bytes) { answer = MetricsEndpoint.answer(to: request) }
                } catch {
                    answer = MetricsEndpoint.answer(to: error)
                }
            }
            exchange.stage = .receiving(reader)
            connection.phase = .http(exchange)
            if let answer { start(answer, on: connection, exchange) }
        case .draining:
            connection.takePendingInput { _ in }
        case .responding, .finishing:
            return
        }
    }

    private func start(_ answer: MetricsEndpoint.Answer, on connection: Connection, _ exchange: HTTPExchange) {
        var exchange = exchange
        switch answer {
        case .metrics(let version, let isHead):
            counters.httpResponses.note(.ok)
            connection.output.append(HTTPResponse.metricsHead(version: version, date: Self.httpDate()))
            exchange.stage = isHead ? .finishing : .responding(MetricsListing(), isChunked: version.allowsChunked)
        case .refusal(let status, let message, let allow, let isHead):
            counters.httpResponses.note(status)
            connection.output.append(
                HTTPResponse.refusal(status, message, date: Self.httpDate(), allow: allow, isHead: isHead))
            exchange.stage = .finishing
        }
        connection.phase = .http(exchange)
    }

    /// Writes the next part of the metrics body, as `pumpStream` does for
    /// METRICS; the last chunk follows the last part.
    func pumpHTTPBody(_ exchange: HTTPExchange, on connection: Connection, byteLimit: Int) {
        guard case .responding(var metrics, let isChunked) = exchange.stage else { return }
        var exchange = exchange
        let isFinished = connection.output.withBytes { output in
            guard isChunked else { return fillMetrics(&metrics, into: &output, byteLimit: byteLimit) }
            let start = HTTPResponse.beginChunk(in: &output)
            let isFinished = fillMetrics(&metrics, into: &output, byteLimit: byteLimit)
            HTTPResponse.endChunk(in: &output, from: start)
            if isFinished { output.append(contentsOf: HTTPResponse.lastChunk) }
            return isFinished
        }
        exchange.stage = isFinished ? .finishing : .responding(metrics, isChunked: isChunked)
        connection.phase = .http(exchange)
    }

    /// Once everything queued is sent: shuts the write side after the
    /// answer, and closes when the client has closed its side (or left
    /// before sending a whole request). True when the connection is closed.
    func finishExchange(_ exchange: HTTPExchange, on connection: Connection) -> Bool {
        switch exchange.stage {
        case .finishing:
            Syscalls.shutdownWrite(connection.fd)
            var exchange = exchange
            exchange.stage = .draining
            connection.phase = .http(exchange)
        case .receiving, .draining, .responding:
            break
        }
        guard connection.inputClosed, !exchange.isResponding else { return false }
        close(connection)
        return true
    }

    /// `metrics_timeout` has passed: a client still sending its request is
    /// told so, with the same lingering close as any answer (for at most
    /// `HTTPExchange.refusalGrace` more), since closing on the unread bytes
    /// of a client that is still sending would reset the connection and
    /// lose the 408; any other is cut (a body cut short lacks its last
    /// chunk). Returns the new deadline when the connection stays open.
    func timeOut(_ connection: Connection, _ exchange: HTTPExchange) -> UInt64? {
        guard case .receiving = exchange.stage else {
            close(connection)
            return nil
        }
        counters.httpResponses.note(.requestTimeout)
        let seconds = Double(configuration.metricsTimeout.nanoseconds) / 1e9
        connection.output.append(
            HTTPResponse.refusal(
                .requestTimeout, "the request did not arrive within \(seconds) s (metrics_timeout)",
                date: Self.httpDate()))
        _ = try? connection.output.flush(to: connection.fd)
        guard !connection.output.hasSendable, !connection.inputClosed else {
            close(connection)
            return nil
        }
        Syscalls.shutdownWrite(connection.fd)
        var exchange = exchange
        exchange.stage = .draining
        exchange.deadline = Daemon.now() + HTTPExchange.refusalGrace
        connection.phase = .http(exchange)
        return exchange.deadline
    }

    /// Now, as the `Date` field writes it.
    static func httpDate() -> String {
        HTTPDate.imfFixdate(secondsSinceEpoch: Int64(Syscalls.wallClockSeconds()))
    }
}
