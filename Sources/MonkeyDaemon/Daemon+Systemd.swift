import Dispatch
import MonkeyCore
import MonkeySystemd

/// What systemd hears from the daemon besides READY and STOPPING: a status
/// line that follows the sessions, and the watchdog's keep-alive.
extension Daemon {
    /// Called after anything that may change the summary. Arms a one-shot
    /// timer instead of sending at once, so that a busy daemon sends at most
    /// one status a second and an idle one arms nothing at all. The summary
    /// is only computed when the timer fires: it costs a pass over sessions.
    func statusMayHaveChanged() {
        guard !isShuttingDown, let deadline = statusThrottle.noteChange(now: Daemon.now()) else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            wakeUps.note(.statusTimer)
            sendStatus()
        }
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(50))
        timer.resume()
        statusTimer = timer
    }

    /// Sends the summary now if it differs from the last one sent.
    func sendStatus() {
        statusTimer?.cancel()
        statusTimer = nil
        if let line = statusThrottle.fire(statusLine, now: Daemon.now()) { notify(.status(line)) }
    }

    /// Starts pinging the watchdog at half its interval when systemd asked
    /// for it (WATCHDOG_USEC, for this pid). The timer runs on the state
    /// queue: a daemon whose queue is stuck stops pinging and gets killed.
    func startWatchdog() {
        let microseconds: UInt64?
        do {
            microseconds = try Systemd.watchdogMicroseconds()
        } catch {
            events.log(.warning, "cannot read the watchdog settings: \(error)")
            return
        }
        guard let microseconds, microseconds > 0 else { return }
        let period = DispatchTimeInterval.microseconds(Int(clamping: microseconds / 2))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            wakeUps.note(.watchdogTimer)
            notify(.watchdog)
        }
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .microseconds(Int(microseconds / 20)))
        timer.resume()
        watchdogTimer = timer
        notify(.watchdog)
    }

    /// The journal entry for one typed entry (only with `log_typed = yes`).
    func typedEvent(_ name: SessionName, _ entry: Entry) -> Event {
        Event(
            kind: .typed, session: name,
            fields: [
                Event.Field("id", String(entry.id)), Event.Field("number", String(entry.number)),
                Event.Field("text", entry.text), Event.Field("hit", entry.isHit ? "yes" : "no"),
            ], peer: nil)
    }
}
