import MonkeyShell

/// Signals as events of the one epoll loop: a signalfd for the signals that
/// main() blocked before any thread existed. Dispatch signal sources register
/// asynchronously, and a SIGHUP or SIGTERM sent right after READY=1 could be
/// lost; a pending signal on a signalfd cannot.
extension Daemon {
    static let handledSignals = [Signal.terminate, Signal.interrupt, Signal.hangUp]

    /// Adds the signalfd to the poller; called before READY=1.
    func watchSignals() {
        do {
            let fd = try Syscalls.signalDescriptor(for: Daemon.handledSignals)
            try poller.add(fd, token: PollToken.signals, interest: .readable)
            signalDescriptor = fd
        } catch {
            // Without it the daemon still serves, but only SIGKILL stops it: say so loudly.
            sink.log(.error, "cannot watch signals: \(error)")
        }
    }

    func handleSignals() {
        guard let fd = signalDescriptor else { return }
        for signal in Syscalls.pendingSignals(fd) {
            if signal == Signal.hangUp { reload() } else { shutDown(signal: signal) }
        }
    }
}
