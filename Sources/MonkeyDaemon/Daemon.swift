import Dispatch
import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// The running daemon: one serial queue owns every piece of state below;
/// the poller, the tick timer and the signal sources all deliver to it.
/// Its event sources hold it strongly: it lives as long as the process.
final class Daemon: @unchecked Sendable {
    let queue = DispatchQueue(label: "monkeyd.state")
    let options: DaemonOptions
    var configuration: Configuration
    var engine: Engine
    let store: FileStore
    let events: EventSink
    let poller: Poller
    let listener: ListeningSocket
    /// Where the metrics are served over HTTP, if anywhere (Daemon+HTTP.swift).
    let metricsListener: MetricsListener?
    /// Members of this group may change state.
    let privilegedGroup: UInt32?
    let ownUserID: UInt32

    var connections: [UInt64: Connection] = [:]
    /// Connections following each session live, in the order they began.
    var followers: [SessionName: [UInt64]] = [:]
    var nextToken: UInt64 = 1
    /// Followers with new entries held back a few milliseconds, so that a
    /// fast session's entries share one write (see `flushFollowers`).
    var deferredFollowers: [Connection] = []
    /// Changes read since the last commit (see `commitChanges`).
    var pendingChanges: [PendingChange] = []
    /// The last group's array, emptied, for the next (see `commitChanges`).
    var spareChanges: [PendingChange] = []
    /// Groups committed so far: which connections a group's answers were
    /// released on is told by `Connection.lastCommit`, not by a set.
    var commitCount: UInt64 = 0
    /// The EVENTS stream's newest events (Daemon+Events.swift).
    var eventLog: EventLog
    /// Connections streaming events live.
    var eventFollowers = Set<UInt64>()
    /// Following TAILs with globs, which follow new sessions they match.
    var globFollowers = Set<UInt64>()
    /// Connections waiting (WAIT), by session (Daemon+Wait.swift).
    var waiters: [SessionName: [UInt64]] = [:]
    /// Serves the timeouts of WAITs; armed only while some waiter has one.
    lazy var waitTimer = DeadlineTimer(queue: queue, leeway: .milliseconds(1)) { [self] in waitTimerFired() }
    static let listenerToken: UInt64 = 0
    static let metricsListenerToken = UInt64.max - 1
    /// Connections of the metrics listener among `connections`.
    var httpConnectionCount = 0
    /// What woke the queue, counted (see `WakeUps`).
    var wakeUps = WakeUps()
    /// Requests answered, by verb and result (see `RequestCounts`).
    var requestCounts = RequestCounts()
    /// Entries not written to followers that did not read (see `FollowerBacklog`).
    var followerEntriesLost: UInt64 = 0
    /// Answers of the metrics listener, by status.
    var httpResponses = HTTPStatusCounts()
    /// Clients turned away over `max_clients` and `max_metrics_clients`.
    var refusedControlClients: UInt64 = 0
    var refusedMetricsClients: UInt64 = 0
    /// When the daemon started, in seconds since the Unix epoch.
    let startTime = Syscalls.wallClockSeconds()

    var pollSource: DispatchSourceRead?
    var tickTimer: DispatchSourceTimer?
    /// How `tickTimer` is set.
    var tickTimerState = TickTimer()
    /// The signalfd of SIGTERM, SIGINT and SIGHUP (Daemon+Signals.swift).
    var signalDescriptor: Int32?
    /// Syncs typed entries to disk; armed only while some are waiting.
    var syncTimer: DispatchSourceTimer?
    var isSyncArmed = false
    var isSyncArmedEarly = false
    var isShuttingDown = false
    /// The listener is unwatched for a moment after accept failed (Daemon+Accept.swift).
    var isAcceptPaused = false
    /// Armed only while a connection holds half a line (Daemon+Idle.swift).
    lazy var idleTimer = DeadlineTimer(queue: queue, leeway: .milliseconds(50)) { [self] in idleTimerFired() }
    /// sd_notify: when to send STATUS= (the rules) and its pending one-shot timer.
    var statusThrottle = StatusThrottle()
    var statusTimer: DispatchSourceTimer?
    var watchdogTimer: DispatchSourceTimer?

    /// Reused for every read and every encoded entry line, so that the hot
    /// paths allocate nothing.
    var readBuffer = [UInt8](repeating: 0, count: 65536)
    var lineScratch: [UInt8] = []
    /// The request line being handled (see `handlePendingFrames`).
    var requestLine: [UInt8] = []
    var typedScratch: [TypedEntry] = []

    init(
        options: DaemonOptions, configuration: Configuration, listener: ListeningSocket,
        metricsListener: MetricsListener?, events: EventSink, store: FileStore, restoring restored: [Session]
    ) throws(StartupError) {
        self.options = options
        self.configuration = configuration
        self.listener = listener
        self.metricsListener = metricsListener
        self.events = events
        self.store = store
        self.engine = Engine(limits: configuration.limits, seed: Syscalls.randomSeed())
        self.privilegedGroup = Syscalls.groupID(named: configuration.socketGroup)
        self.ownUserID = Syscalls.effectiveUserID()
        engine.accessRule =
            "only root, the daemon's user (uid \(ownUserID)) and members of group \(configuration.socketGroup) may"
        let now = Daemon.now()
        engine.reserveEpochs(below: store.loadedNextEpoch)
        self.eventLog = EventLog(
            capacity: configuration.maximumEvents, nextID: store.loadedEventsReservedID, restoring: store.loadedEvents)
        do {
            self.poller = try Poller()
            try poller.add(listener.fd, token: Daemon.listenerToken, interest: .readable)
            if let metricsListener {
                try poller.add(metricsListener.fd, token: Daemon.metricsListenerToken, interest: .readable)
            }
        } catch {
            throw StartupError("cannot set up the event loop", error)
        }
        record(restored.map { engine.restore($0, now: now) })
    }

    /// The monotonic clock Dispatch timers use.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Starts the event sources and tells systemd the daemon is ready.
    func start() {
        queue.sync {
            let source = DispatchSource.makeReadSource(fileDescriptor: poller.fd, queue: queue)
            source.setEventHandler { [self] in self.pollReady() }
            source.resume()
            pollSource = source

            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [self] in self.tickTimerFired() }
            timer.schedule(deadline: .distantFuture)
            timer.resume()
            tickTimer = timer
            rearmTimer()
            // The events of the sessions restored (written like typed entries).
            armSyncTimer()

            watchSignals()
            Syscalls.ignoreSignal(Signal.brokenPipe)
            notify(.ready)
            sendStatus()
            startWatchdog()
            let metrics = metricsListener.map { ", metrics on \($0.description)" } ?? ""
            events.log(.info, "listening on \(options.socketPath), state in \(options.stateDirectory)\(metrics)")
        }
    }

    var statusLine: String {
        let summary = engine.summary
        return
            "\(summary.sessions) sessions, \(summary.typing) typing, \(summary.typed) entries typed, \(summary.hits) hits"
    }

    func notify(_ states: NotifyState...) {
        for state in states {
            do {
                try Systemd.notify(state)
            } catch {
                events.log(.warning, "cannot notify systemd: \(error)")
            }
        }
    }
}
