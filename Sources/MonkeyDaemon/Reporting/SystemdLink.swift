import Dispatch
import MonkeyCore
import MonkeySystemd

/// What systemd hears from the daemon: READY, RELOADING and STOPPING; a
/// status line that follows the sessions, sent at most about once a
/// second; and the watchdog's keep-alive, sent from the queue that does
/// the work, so that a daemon whose queue is stuck stops pinging and gets
/// killed. Used only on that queue.
final class SystemdLink {
    private let queue: DispatchQueue
    private let sink: EventSink
    /// When to send STATUS= (the rules), and its pending one-shot timer.
    private var throttle = StatusThrottle()
    private var statusTimer: DispatchSourceTimer?
    private var watchdogTimer: DispatchSourceTimer?
    /// The daemon's one-line summary, worked out only when it is sent: it
    /// costs a pass over the sessions.
    private var summary: () -> String = { "" }
    /// Called first when one of this part's timers fires (the daemon counts it).
    private var wake: (WakeUps.Source) -> Void = { _ in }
    /// A manager listens (`NOTIFY_SOCKET` was set when the daemon became
    /// ready). With none, no status is worked out: the summary is a pass
    /// over every session and its timer a wake-up a second, about 1 % of
    /// what 10,000 sessions typing cost, for a line nobody reads.
    private var managerListens = false

    init(queue: DispatchQueue, sink: EventSink) {
        self.queue = queue
        self.sink = sink
    }

    /// Tells systemd the daemon is ready; from now on the status follows
    /// `summary`, and the watchdog is pinged if systemd asked for it.
    func start(summary: @escaping () -> String, wake: @escaping (WakeUps.Source) -> Void) {
        self.summary = summary
        self.wake = wake
        managerListens = notify(.ready)
        sendStatus()
        startWatchdog()
    }

    /// Returns whether a manager listens: false when `NOTIFY_SOCKET` is unset.
    @discardableResult
    func notify(_ states: NotifyState...) -> Bool {
        var listens = false
        for state in states {
            do {
                listens = try Systemd.notify(state) || listens
            } catch {
                sink.log(.warning, "cannot notify systemd: \(error)")
                listens = true
            }
        }
        return listens
    }

    /// Called after anything that may change the summary. Arms a one-shot
    /// timer instead of sending at once, so that a busy daemon sends at most
    /// one status a second and an idle one arms nothing at all.
    func statusMayHaveChanged(now: UInt64) {
        guard managerListens, let deadline = throttle.noteChange(now: now) else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            wake(.statusTimer)
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
        guard managerListens else { return }
        if let line = throttle.fire(summary(), now: DispatchTime.now().uptimeNanoseconds) { notify(.status(line)) }
    }

    /// Starts pinging the watchdog at half its interval when systemd asked
    /// for it (WATCHDOG_USEC, for this pid).
    private func startWatchdog() {
        let microseconds: UInt64?
        do {
            microseconds = try Systemd.watchdogMicroseconds()
        } catch {
            sink.log(.warning, "cannot read the watchdog settings: \(error)")
            return
        }
        guard let microseconds, microseconds > 0 else { return }
        let period = DispatchTimeInterval.microseconds(Int(clamping: microseconds / 2))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in
            wake(.watchdogTimer)
            notify(.watchdog)
        }
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .microseconds(Int(microseconds / 20)))
        timer.resume()
        watchdogTimer = timer
        notify(.watchdog)
    }

    /// At shutdown: no status and no ping any more.
    func cancelTimers() {
        statusTimer?.cancel()
        watchdogTimer?.cancel()
    }
}
