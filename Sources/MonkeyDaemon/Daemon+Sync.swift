import Dispatch
import MonkeyCore
import MonkeyShell

/// Durability of typed entries: one timer that syncs them at most
/// `sync_interval` after they were typed, armed only while some wait, so
/// that an idle daemon never wakes up for it.
extension Daemon {
    func armSyncTimer() {
        guard store.hasPendingWrites, !isSyncArmed, !isShuttingDown else { return }
        let timer = syncTimer ?? makeSyncTimer()
        isSyncArmed = true
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(clamping: store.syncInterval.nanoseconds)),
            leeway: .milliseconds(10))
    }

    private func makeSyncTimer() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            isSyncArmed = false
            // Afterwards, what typing added meanwhile (or a failure left) waits one interval more.
            store.sync(replyingOn: queue) { [self] in armSyncTimer() }
        }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        syncTimer = timer
        return timer
    }

    /// At shutdown, after typing stopped: everything to disk, exact state.
    func flushStore() {
        syncTimer?.cancel()
        store.close(engine.sessionNames.compactMap { engine.session(named: $0)?.snapshot })
    }
}

extension MonkeyDaemon {
    /// Opens the store in `<state-dir>/sessions` and loads what it holds.
    static func openStore(_ options: DaemonOptions, _ configuration: Configuration, events: EventSink)
        throws(StartupError) -> (FileStore, [Session])
    {
        let directory = options.stateDirectory + "/sessions"
        do {
            try Syscalls.makeDirectories(directory, mode: 0o750)
        } catch {
            throw StartupError("cannot create the session directory", error)
        }
        let store = FileStore(directory: directory, syncInterval: configuration.syncInterval) { priority, message in
            events.log(priority, message)
        }
        do {
            return (store, try store.load(retention: configuration.limits.maximumEntries))
        } catch {
            throw StartupError(error.message)
        }
    }
}
