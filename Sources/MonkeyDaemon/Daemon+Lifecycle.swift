import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// Reload and shutdown, mirroring start-up.
extension Daemon {
    /// SIGHUP: reads the configuration again; a bad one is logged and the
    /// old one kept.
    func reload() {
        notify(.reloading(monotonicMicroseconds: Syscalls.monotonicNanoseconds() / 1000))
        do {
            let loaded = try MonkeyDaemon.loadConfiguration(options)
            configuration = loaded
            engine.update(loaded.limits)
            store.changeSyncInterval(
                to: loaded.syncInterval,
                sessionIntervals: Dictionary(
                    engine.snapshots.map { ($0.name, $0.settings.interval) }, uniquingKeysWith: { $1 }))
            store.changeJournalLimit(to: loaded.journalSize)
            store.changeControlLogLimit(to: loaded.controlLogSize)
            events.record(
                Event(
                    kind: .reload, session: nil, fields: [Event.Field("config", options.configurationPath)], peer: nil,
                    message: "reloaded the configuration from \(options.configurationPath)"))
        } catch {
            events.log(.error, "kept the old configuration: \(error.message)")
        }
        notify(.ready)
        sendStatus()
    }

    /// SIGTERM/SIGINT: stop accepting, stop typing, end followers, flush,
    /// remove the socket we created, exit 0.
    func shutDown(signal: Int32) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        notify(.stopping)
        events.log(.info, "shutting down on \(signal == Signal.interrupt ? "SIGINT" : "SIGTERM")")
        poller.remove(listener.fd)
        Syscalls.close(listener.fd)
        tickTimer?.cancel()
        statusTimer?.cancel()
        watchdogTimer?.cancel()
        for connection in connections.values {
            if connection.hasResponseInProgress {
                connection.phase = .closing
                appendStatus(.error(ProtocolError(.shuttingDown, "monkeyd is shutting down")), to: connection)
            }
            _ = try? connection.output.flush(to: connection.fd)
            Syscalls.shutdownWrite(connection.fd)
            close(connection)
        }
        flushStore()
        if let path = listener.createdPath {
            do {
                try Syscalls.unlink(path)
            } catch {
                events.log(.warning, "cannot remove the socket: \(error)")
            }
        }
        events.log(.info, "stopped")
        Syscalls.exit(0)
    }
}
