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
            if loaded.metricsListen != configuration.metricsListen {
                events.log(.warning, "metrics_listen changed: the metrics listener moves when the daemon starts again")
            }
            configuration = loaded
            engine.update(loaded.limits)
            store.changeSyncInterval(
                to: loaded.syncInterval,
                sessionIntervals: Dictionary(
                    engine.snapshots.map { ($0.name, $0.settings.interval) }, uniquingKeysWith: { $1 }))
            store.changeJournalLimit(to: loaded.journalSize)
            store.changeControlLogLimit(to: loaded.controlLogSize)
            // Streams keep their place by id, so dropping the oldest is safe.
            eventLog.setCapacity(loaded.maximumEvents)
            events.record(
                Event(
                    kind: .reload, session: nil, fields: [Event.Field("config", options.configurationPath)], peer: nil))
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
        if let metricsListener {
            poller.remove(metricsListener.fd)
            Syscalls.close(metricsListener.fd)
        }
        tickTimer?.cancel()
        waitTimer.cancel()
        idleTimer.cancel()
        statusTimer?.cancel()
        watchdogTimer?.cancel()
        for connection in connections.values {
            // An HTTP answer is sent as far as it goes: a body cut short lacks its last chunk.
            if !connection.isHTTP && connection.hasResponseInProgress {
                if case .waiting = connection.phase { requestCounts.note(.wait, .shuttingDown) }
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
