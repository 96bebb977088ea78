import MonkeyShell

extension Runner {
    /// `tail -f`: prints entries as they come until Ctrl-C, then asks the
    /// daemon to end the stream (any line does) and waits for its `OK`, so
    /// that an interrupted follow still ends with status 0.
    ///
    /// The SIGINT handler only counts presses. SIGINT stays blocked except
    /// while waiting for the daemon, and a press held pending while lines
    /// keep coming is counted at the top of each round, so the loop reacts
    /// here, outside the handler, however busy the stream is.
    /// A second Ctrl-C while waiting for the `OK` gives up at once.
    func follow(_ request: String, on connection: ClientConnection) throws(ControlFailure) {
        let previous = Syscalls.catchInterrupts()
        defer { Syscalls.restoreInterrupts(previous) }
        try send(request, on: connection)
        var hasAskedToEnd = false
        while true {
            Syscalls.deliverPendingInterrupt()
            let presses = Syscalls.interrupts
            if presses > 0 && !hasAskedToEnd {
                hasAskedToEnd = true
                // A failed send is not fatal: the daemon may already have
                // ended the stream, and its last lines are still to be read.
                try? connection.send(line: "")
            } else if presses > 1 {
                throw .interrupted
            }
            let line: String?
            do {
                line = try connection.readLine(interruptible: true)
            } catch {
                if error.isInterrupted { continue }
                throw .connectionLost(reason: error.reason)
            }
            switch try Self.decode(line) {
            case .record(let record):
                emit(record)
                console.flush()
            case .ok:
                return
            }
        }
    }
}
