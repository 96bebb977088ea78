import MonkeyCore

/// Durability of typed entries and events: one timer that syncs them at
/// most `sync_interval` after they came, armed only while some wait, so
/// that an idle daemon never wakes up for it.
extension Daemon {
    func armSyncTimer() {
        // While a sync is in progress its completion arms the timer again.
        guard store.hasPendingWrites(events: eventLog) || engine.hasUnstoredEntries, !store.isSyncing,
            !isShuttingDown
        else { return }
        // Much piled up (a long sync_interval, fast typing): written now
        // rather than more held in memory; the timer moves only earlier.
        let delay = store.wantsEarlySync ? 0 : store.syncInterval.nanoseconds
        syncTimer.arm(at: Daemon.now() &+ delay)
    }

    /// Hands what waits to the storage thread; afterwards, what came
    /// meanwhile (or a failure left) waits one interval more.
    func syncTimerFired() {
        counters.wakeUps.note(.syncTimer)
        storeFlatOutEntries()
        let wasSyncing = store.isSyncing
        store.sync(events: eventLog, replyingOn: queue) { [self] in
            counters.wakeUps.note(.syncCompletion)
            armSyncTimer()
        }
        // Coverage follows the entries it came from, on the same queue.
        if !wasSyncing && store.isSyncing { saveCoverage() }
    }

    /// Hands the corpus sessions' coverage that changed to the storage thread.
    func saveCoverage() {
        coverageStore.save(engine.corpusRuns(), on: store.writer.queue) { [self] message in
            // Said from the daemon's queue, which owns the sink.
            queue.async { [self] in sink.log(.warning, message) }
        }
    }
}
