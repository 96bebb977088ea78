import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// Reload and shutdown, mirroring start-up.
extension Daemon {
    /// SIGHUP: reads the configuration again; a bad one is logged and the
    /// old one kept.
    func reload() {
        systemd.notify(.reloading(monotonicMicroseconds: Syscalls.monotonicNanoseconds() / 1000))
        do {
            let loaded = try ConfigurationFile.load(options)
            if loaded.metricsListen != configuration.metricsListen {
                sink.log(.warning, "metrics_listen changed: the metrics listener moves when the daemon starts again")
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
            record(Event(.reloaded(configuration: options.configurationPath), session: nil))
        } catch {
            sink.log(.error, "kept the old configuration: \(error.message)")
        }
        systemd.notify(.ready)
        systemd.sendStatus()
    }

    /// SIGTERM/SIGINT: stop accepting, stop typing, end followers, flush,
    /// remove the socket we created, exit 0.
    func shutDown(signal: Int32) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        systemd.notify(.stopping)
        sink.log(.info, "shutting down on \(signal == Signal.interrupt ? "SIGINT" : "SIGTERM")")
        poller.remove(listeners.control.fd)
        Syscalls.close(listeners.control.fd)
        if let metrics = listeners.metrics {
            poller.remove(metrics.fd)
            Syscalls.close(metrics.fd)
        }
        tickTimer.cancel()
        waitTimer.cancel()
        idleTimer.cancel()
        systemd.cancelTimers()
        for connection in connections.all {
            // An HTTP answer is sent as far as it goes: a body cut short lacks its last chunk.
            if !connection.isHTTP && connection.hasResponseInProgress {
                switch connection.phase {
                case .waiting: counters.requests.note(.wait, .shuttingDown)
                case .buildingCorpus(let request): counters.requests.note(request.verb, .shuttingDown)
                default: break
                }
                connection.phase = .closing
                connection.appendStatus(.error(ProtocolError(.shuttingDown, "monkeyd is shutting down")))
            }
            _ = try? connection.output.flush(to: connection.fd)
            Syscalls.shutdownWrite(connection.fd)
            close(connection)
        }
        // Typing has stopped: what the pass read is committed (the end of
        // the pass never comes), then everything to disk, exact state.
        syncTimer.cancel()
        settle()
        storeFlatOutEntries()
        saveCoverage()
        store.close(engine.snapshots, events: eventLog, nextEpoch: engine.nextEpoch)
        if let path = listeners.control.createdPath {
            do {
                try Syscalls.unlink(path)
            } catch {
                sink.log(.warning, "cannot remove the socket: \(error)")
            }
        }
        sink.log(.info, "stopped")
        Syscalls.exit(0)
    }
}
