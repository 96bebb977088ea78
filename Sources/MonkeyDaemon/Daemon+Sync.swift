import Dispatch
import MonkeyCore
import MonkeyShell

/// Durability of typed entries: one timer that syncs them at most
/// `sync_interval` after they were typed, armed only while some wait, so
/// that an idle daemon never wakes up for it.
extension Daemon {
    func armSyncTimer() {
        // While a sync is in progress its completion arms the timer again.
        guard store.hasPendingWrites(events: eventLog), !store.isSyncing, !isShuttingDown else { return }
        // Much piled up (a long sync_interval, fast typing): write it now
        // rather than hold more in memory.
        let isEarly = store.wantsEarlySync
        guard !isSyncArmed || (isEarly && !isSyncArmedEarly) else { return }
        let timer = syncTimer ?? makeSyncTimer()
        isSyncArmed = true
        isSyncArmedEarly = isEarly
        let delay = isEarly ? 0 : Int(clamping: store.syncInterval.nanoseconds)
        timer.schedule(deadline: .now() + .nanoseconds(delay), leeway: .milliseconds(10))
    }

    private func makeSyncTimer() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            wakeUps.note(.syncTimer)
            isSyncArmed = false
            isSyncArmedEarly = false
            // Afterwards, what typing added meanwhile (or a failure left) waits one interval more.
            store.sync(events: eventLog, replyingOn: queue) { [self] in
                wakeUps.note(.syncCompletion)
                armSyncTimer()
            }
        }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        syncTimer = timer
        return timer
    }

    /// At shutdown, after typing stopped: everything to disk, exact state.
    func flushStore() {
        syncTimer?.cancel()
        commitChanges()
        store.close(engine.snapshots, events: eventLog, nextEpoch: engine.nextEpoch)
    }
}

extension MonkeyDaemon {
    /// Opens the store in `<state-dir>/sessions`, loading what it holds.
    static func openStore(_ options: DaemonOptions, _ configuration: Configuration, events: EventSink)
        throws(StartupError) -> FileStore
    {
        let directory = options.stateDirectory + "/sessions"
        do {
            try Syscalls.makeDirectories(directory, mode: 0o750)
        } catch {
            throw StartupError("cannot create the session directory", error)
        }
        do {
            return try FileStore(
                directory: directory, syncInterval: configuration.syncInterval,
                journalLimit: configuration.journalSize, controlLogLimit: configuration.controlLogSize,
                retention: configuration.limits.maximumEntries
            ) { priority, message in
                events.log(priority, message)
            }
        } catch {
            throw StartupError(error.message)
        }
    }
}
