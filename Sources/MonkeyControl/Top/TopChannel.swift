import MonkeyCore
import MonkeyShell

/// One connection from `top` to the daemon, read without blocking: the
/// requests sent on it are answered in order, so a queue says what each
/// response is for, and its lines are handed out as they arrive.
final class TopChannel {
    /// What a response answers.
    enum Request: Equatable {
        case hello
        case metrics
        case status
        case change(TopRequest)
        case tail(String)
        /// COVERAGE of a corpus session, for the lower pane.
        case coverage(String)
        /// The EVENTS stream, until `top` goes.
        case events
    }

    /// What arrived: a data line of a response (its bytes, without the
    /// LF: most are read without ever becoming a String), or its end.
    enum Arrival {
        case line([UInt8], of: Request)
        /// The status line: the OK text, or the ERR as a failure.
        case finished(Request, Result<String?, ControlFailure>)
    }

    let fd: Int32
    private var framer = LineFramer(maximumLength: TopChannel.longestLine)
    private var waiting: [Request] = []
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    /// Longer lines are not the daemon's: the connection is given up.
    static let longestLine = 1 << 20

    /// Through ssh, the child behind the connection, reaped with it.
    private let tunnel: SSHTunnel?
    private var hasReceived = false

    /// Connects to the daemon (blocking, as for every `monkeyctl`
    /// command), then makes reads non-blocking.
    init(connector: Connector) throws(ControlFailure) {
        let (socket, tunnel) = try connector.open()
        do {
            try Syscalls.setNonBlocking(socket)
        } catch {
            Syscalls.close(socket)
            throw .connectionLost(reason: error.reason)
        }
        // Only now: once `fd` is set, a throw would run deinit and close it again.
        fd = socket
        self.tunnel = tunnel
    }

    deinit {
        if let tunnel {
            Syscalls.shutdownBoth(fd)
            tunnel.finish()
        }
        Syscalls.close(fd)
    }

    /// Whether an answer to `request` is still to come.
    func isWaiting(for request: Request) -> Bool {
        waiting.contains(request)
    }

    var isWaitingForStatus: Bool { waiting.contains(.status) }

    /// Sends the request's line. Requests are a few bytes, so the socket
    /// buffer takes them at once; a daemon that reads none is lost.
    func send(_ line: String, for request: Request) throws(ControlFailure) {
        do {
            try Syscalls.sendAll(fd, Array((line + "\n").utf8))
        } catch {
            throw .connectionLost(reason: "could not send \(line.split(separator: " ").first ?? ""): \(error.reason)")
        }
        waiting.append(request)
    }

    /// Asks the daemon to end a TAIL (any line does); its OK follows.
    func endStream() {
        _ = try? Syscalls.sendAll(fd, [0x0A])
    }

    /// Reads what has arrived and hands out its lines; throws when the
    /// connection ended or broke, or a line is not the protocol's (through
    /// ssh, as ssh's end explains it).
    func receive(_ handle: (Arrival) -> Void) throws(ControlFailure) {
        do {
            try receiveLines(handle)
        } catch {
            guard let tunnel else { throw error }
            throw tunnel.explained(error, hadAnswered: hasReceived, shut: fd)
        }
    }

    private func receiveLines(_ handle: (Arrival) -> Void) throws(ControlFailure) {
        while true {
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try Syscalls.read(fd, into: raw) }
            }
            let count: Int
            switch result {
            case .success(.bytes(let read)):
                count = read
                hasReceived = true
            case .success(.wouldBlock): return
            case .success(.endOfFile): throw .connectionLost(reason: "monkeyd closed the connection")
            case .failure(let error): throw .connectionLost(reason: error.reason)
            }
            var failure: ControlFailure?
            buffer.withUnsafeBytes { raw in
                framer.feed(UnsafeRawBufferPointer(rebasing: raw[0..<count])) { frame in
                    guard failure == nil else { return }
                    failure = deliver(frame, handle)
                }
            }
            if let failure { throw failure }
            if count < buffer.count { return }
        }
    }

    /// `OK`, `OK text` or `ERR code text`: the end of a response.
    static func isStatusLine(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: [0x4F, 0x4B]) { return bytes.count == 2 || bytes[2] == 0x20 }
        return bytes.starts(with: [0x45, 0x52, 0x52, 0x20])
    }

    /// Hands out one line; returns why the connection must be given up, if it must.
    private func deliver(_ frame: LineFramer.Frame, _ handle: (Arrival) -> Void) -> ControlFailure? {
        guard case .line(let bytes) = frame else {
            return .malformedReply(line: "a line longer than \(Self.longestLine) bytes")
        }
        guard let request = waiting.first else { return .malformedReply(line: String(decoding: bytes, as: UTF8.self)) }
        guard Self.isStatusLine(bytes) else {
            handle(.line(bytes, of: request))
            return nil
        }
        let line = String(decoding: bytes, as: UTF8.self)
        waiting.removeFirst()
        let outcome = Result { () throws(ControlFailure) -> Runner.Reply in try Runner.decode(line) }
        switch outcome {
        case .success(.ok(let text)): handle(.finished(request, .success(text)))
        case .success(.record): return .malformedReply(line: line)
        case .failure(let failure): handle(.finished(request, .failure(failure)))
        }
        return nil
    }
}
