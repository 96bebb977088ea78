import MonkeyShell

/// `monkeyctl bridge`: standard input and output joined to the daemon's
/// socket, as `systemd-stdio-bridge` joins them to a bus, so that
/// `ssh HOST monkeyctl bridge` carries the protocol to the daemon on HOST
/// with the rights of the ssh user there (the daemon sees the bridge's
/// SO_PEERCRED). Bytes pass unchanged both ways, through one buffer of
/// fixed size each way, in one poll loop:
///
/// - the end of standard input shuts the socket's writing side
///   (`shutdown(SHUT_WR)`), and the bridge reads on until the daemon has
///   answered what came before and closes, as a client that half-closes
///   expects (a follower's `TAIL` ends so);
/// - the daemon closing ends the bridge once standard output has it all;
/// - whoever reads standard output going away ends it too.
///
/// Each of those is a clean end. A connection that breaks is
/// `connectionLost`, and no daemon to connect to is `unreachable`.
struct Bridge {
    let input: Int32
    let output: Int32
    private let connection: ClientConnection
    /// Standard input to the daemon.
    private var requests = BridgeRelay()
    /// The daemon to standard output.
    private var responses = BridgeRelay()

    /// Connects to the daemon at `socketPath`.
    init(socketPath: String, input: Int32 = 0, output: Int32 = Syscalls.standardOutput) throws(ControlFailure) {
        do {
            connection = try ClientConnection(path: socketPath)
            try Syscalls.setNonBlocking(connection.fd)
        } catch {
            throw .unreachable(path: socketPath, error: error)
        }
        self.input = input
        self.output = output
    }

    /// Copies until one of the ends above.
    mutating func run() throws(ControlFailure) {
        // A reader of standard output gone is EPIPE from write, never a signal.
        Syscalls.ignoreSignal(Signal.brokenPipe)
        while try step() {}
    }

    /// One pass of the loop: waits for what can move, moves it; false at a clean end.
    private mutating func step() throws(ControlFailure) -> Bool {
        if requests.isDrained {
            Syscalls.shutdownWrite(connection.fd)
            requests.close()
        }
        if responses.isDrained || responses.state == .closed { return false }
        var socketEvents: Syscalls.PollEvents = []
        if responses.wantsInput { socketEvents.insert(.readable) }
        if requests.wantsOutput { socketEvents.insert(.writable) }
        // A descriptor polled for nothing still reports a hang-up, again and
        // again: left out (-1) unless watched. Standard output is always
        // watched, for its reader going away while nothing is to be written.
        let ready: [Syscalls.PollEvents]
        do {
            ready = try Syscalls.waitForEvents([
                (requests.wantsInput ? input : -1, .readable),
                (socketEvents.isEmpty ? -1 : connection.fd, socketEvents),
                (output, responses.wantsOutput ? .writable : []),
            ])
        } catch {
            throw .connectionLost(reason: error.reason)
        }
        let woken: Syscalls.PollEvents = [.hangUp, .failed]
        if !ready[0].isDisjoint(with: woken.union(.readable)) { readRequests() }
        if !ready[1].isDisjoint(with: woken.union(.readable)) && responses.wantsInput { try readResponses() }
        if !ready[1].isDisjoint(with: woken.union(.writable)) && requests.wantsOutput { try sendRequests() }
        if !ready[2].isDisjoint(with: .writable) && responses.wantsOutput { try writeResponses() }
        // The reader of standard output is gone: nobody wants the rest.
        if !ready[2].isDisjoint(with: woken) { responses.close() }
        return true
    }

    /// Standard input: a read that fails ends it as its end does, so that
    /// the daemon still answers what came before.
    private mutating func readRequests() {
        let input = self.input
        do {
            try requests.receive { buffer throws(SystemError) in try Syscalls.read(input, into: buffer) }
        } catch {
            requests.endInput()
        }
    }

    private mutating func readResponses() throws(ControlFailure) {
        let fd = connection.fd
        do {
            try responses.receive { buffer throws(SystemError) in try Syscalls.read(fd, into: buffer) }
        } catch {
            throw .connectionLost(reason: error.reason)
        }
    }

    /// The daemon stopped reading (it closed after `QUIT`, or refused the
    /// client): what is still to send is dropped, and what it sent still
    /// comes.
    private mutating func sendRequests() throws(ControlFailure) {
        let fd = connection.fd
        do {
            try requests.send { bytes throws(SystemError) in try Syscalls.send(fd, bytes) }
        } catch  where error.isPeerGone {
            requests.close()
        } catch {
            throw .connectionLost(reason: error.reason)
        }
    }

    /// Standard input and output are left as they are: they are shared
    /// with whoever started the bridge (a shell, sshd), so making them
    /// non-blocking would change them for others too. A read after poll
    /// says it is readable does not block; a write does not either when it
    /// is at most `PIPE_BUF` bytes after poll says writable (a pipe then
    /// has a free page, a socket three quarters of its buffer), so that is
    /// the most written at once. A terminal may still make it wait.
    static let largestWrite = 4096

    private mutating func writeResponses() throws(ControlFailure) {
        let output = self.output
        do {
            try responses.send { bytes throws(SystemError) in
                try Syscalls.write(output, UnsafeRawBufferPointer(rebasing: bytes.prefix(Self.largestWrite)))
            }
        } catch  where error.isPeerGone {
            responses.close()
        } catch {
            throw .connectionLost(reason: "cannot write standard output: \(error.reason)")
        }
    }
}
