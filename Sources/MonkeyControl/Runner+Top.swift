import MonkeyCore
import MonkeyShell

extension Runner {
    /// `top`: the full-screen view when stdin and stdout are a terminal
    /// (and not a `dumb` one) and `--once` is not given; otherwise one
    /// snapshot table, cut to the terminal's width if stdout is one.
    func top(once: Bool, delay: Interval) throws(ControlFailure) {
        let channel = try TopChannel(connector: connector)
        let isInteractive =
            !once && console.isOutputTerminal && Syscalls.isTerminal(0) && environment["TERM"] != "dumb"
        guard isInteractive else {
            let width = console.isOutputTerminal ? FullScreenTerminal.size(of: Syscalls.standardOutput)?.columns : nil
            try printSnapshot(channel, width: width)
            return
        }
        // Through ssh a host not reached shows only when its answer does
        // not come: asked here, before the screen is taken, it is an
        // ordinary error, as a socket here that cannot be connected to is.
        if connector.isRemote { try printSnapshot(channel, width: nil, prints: false) }
        console.flush()
        let watched = [Signal.windowChanged, Signal.interrupt, Signal.terminate, Signal.hangUp, Signal.quit]
        let mask = Syscalls.blockSignalsReturningMask(watched)
        let signals: Int32
        do {
            signals = try Syscalls.signalDescriptor(for: watched)
        } catch {
            Syscalls.setSignalMask(mask)
            throw .connectionLost(reason: "cannot watch signals: \(error)")
        }
        let ending: TopLoop.Ending
        do {
            let terminal = try FullScreenTerminal()
            ending = TopLoop(
                connector: connector, channel: channel, terminal: terminal, signals: signals,
                usesColor: formatter.usesColor, refreshPeriod: delay.nanoseconds
            ).run()
            terminal.restore()
        } catch {
            Syscalls.close(signals)
            Syscalls.setSignalMask(mask)
            throw .connectionLost(reason: "cannot take over the terminal: \(error.reason)")
        }
        Syscalls.close(signals)
        if case .signal(let signal) = ending {
            console.flush()
            Syscalls.dieBySignal(signal)
        }
        Syscalls.setSignalMask(mask)
    }

    /// HELLO, METRICS and STATUS, waited for, then printed as a table.
    private func printSnapshot(_ channel: TopChannel, width: Int?, prints: Bool = true) throws(ControlFailure) {
        var daemon = DaemonFigures()
        var sessions: [SessionFigures] = []
        var reader = StatusReader()
        var failure: ControlFailure?
        try channel.send(RequestEncoder.line(.hello), for: .hello)
        try channel.send(RequestEncoder.line(.metrics), for: .metrics)
        try channel.send(RequestEncoder.line(.status), for: .status)
        var isDone = false
        while !isDone {
            _ = Syscalls.waitReadable([channel.fd], timeoutMilliseconds: -1)
            try channel.receive { arrival in
                switch arrival {
                case .line(let line, .status):
                    if let session = reader.read(line) { sessions.append(session) }
                case .line(let line, .metrics):
                    daemon.read(metricsLine: line)
                case .line:
                    break
                case .finished(.hello, .success(let text)):
                    daemon.read(hello: text ?? "")
                case .finished(let request, .failure(let error)):
                    if request == .status { failure = error }
                    isDone = isDone || request == .status
                case .finished(let request, .success):
                    isDone = isDone || request == .status
                }
            }
        }
        if let failure { throw failure }
        guard prints else { return }
        let snapshot = TopSnapshot(daemon: daemon, sessions: sessions, takenAt: Syscalls.monotonicNanoseconds())
        for line in TopLayout.snapshotTable(
            snapshot, socketPath: connector.place, width: width, wallClock: Syscalls.wallClockSeconds())
        {
            console.print(line)
        }
    }
}
