import Dispatch
import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// The running daemon: the loop that wires the parts. One serial queue
/// owns every part below; the poller, the timers and the signalfd all
/// deliver to it, and every wake-up is one pass (`pass`) that ends with
/// the one end-of-pass step (`endOfPass`). Its event sources hold it
/// strongly: it lives as long as the process.
///
/// The parts, each with its own job: the `Engine` (sessions, requests,
/// ticks: the pure core), the `FileStore` (what reaches the disk), the
/// `ConnectionTable` and the `Listeners` (who is connected, and how they
/// came), `Subscriptions` (who follows what), the `GroupCommit` (changes
/// answered, waiting to be durable), the `EventLog` (the EVENTS stream),
/// `Counters` (what METRICS reads), the timers and the `SystemdLink`.
final class Daemon: @unchecked Sendable {
    let queue = DispatchQueue(label: "monkeyd.state")
    let options: DaemonOptions
    var configuration: Configuration
    var engine: Engine
    let store: FileStore
    /// Corpus sessions' copies of their works and their coverage.
    var coverageStore: CoverageStore
    /// Where events and the daemon's own messages go: the journal, or stderr.
    let sink: EventSink
    let poller: Poller
    var listeners: Listeners
    var connections = ConnectionTable()
    var subscriptions = Subscriptions()
    var commits = GroupCommit()
    /// The EVENTS stream's newest events (Daemon+Events.swift).
    var eventLog: EventLog
    var counters = Counters()
    /// What the pass under way leaves for its end.
    var pass = PassState()
    let systemd: SystemdLink
    lazy var tickTimer = TickTimerSource(queue: queue) { [self] in tickTimerFired() }
    /// Syncs typed entries and events at most `sync_interval` after they
    /// came; armed only while some wait.
    lazy var syncTimer = DeadlineTimer(queue: queue, leeway: .milliseconds(10)) { [self] in syncTimerFired() }
    /// Serves the timeouts of WAITs; armed only while some waiter has one.
    lazy var waitTimer = DeadlineTimer(queue: queue, leeway: .milliseconds(1)) { [self] in waitTimerFired() }
    /// Armed only while a connection holds half a line or an HTTP
    /// connection is open (Daemon+Timeouts.swift).
    lazy var idleTimer = DeadlineTimer(queue: queue, leeway: .milliseconds(50)) { [self] in idleTimerFired() }
    var pollSource: DispatchSourceRead?
    /// The typing threads of flat-out sessions (Daemon+Typing.swift),
    /// started with the first batch; their number is read at start-up.
    lazy var typingPool = TypingPool(
        threads: typingThreadCount,
        finished: { [weak self] in
            guard let daemon = self else { return }
            daemon.queue.async { daemon.typedBatchesFinished() }
        },
        failed: { [weak self] error in
            guard let daemon = self else { return }
            daemon.queue.async { daemon.sink.log(.warning, "typing thread: \(error)") }
        })
    /// Builds the corpora START and SET name, off the queue.
    let corpusBuilder = CorpusBuilder()
    /// `typing_threads` as read at start-up (a reload does not change it).
    let typingThreadCount: Int
    /// Flat-out batches handed to the typing threads and not yet merged.
    var batchesInFlight = 0
    /// The signalfd of SIGTERM, SIGINT and SIGHUP (Daemon+Signals.swift).
    var signalDescriptor: Int32?
    var isShuttingDown = false
    var scratch = Scratch()

    /// What the poller reports besides connections, which have tokens of
    /// their own (`ConnectionTable.makeToken`).
    enum PollToken {
        static let controlListener: UInt64 = 0
        static let metricsListener = UInt64.max - 1
        static let signals = UInt64.max
    }

    /// Buffers reused for every read, request and tick, so that the hot
    /// paths allocate nothing.
    struct Scratch {
        var read = [UInt8](repeating: 0, count: 65536)
        /// The request line being handled (see `handlePendingFrames`).
        var requestLine: [UInt8] = []
        var typed: [TypedEntry] = []
    }

    init(
        options: DaemonOptions, configuration: Configuration, listener: ListeningSocket,
        metricsListener: MetricsListener?, sink: EventSink, store: FileStore, restoring restored: [Session]
    ) throws(StartupError) {
        self.options = options
        self.configuration = configuration
        self.typingThreadCount = configuration.typingThreads ?? Syscalls.usableProcessorCount()
        self.sink = sink
        self.store = store
        self.coverageStore = CoverageStore(directory: options.stateDirectory + "/coverage")
        self.systemd = SystemdLink(queue: queue, sink: sink)
        self.engine = Engine(limits: configuration.limits, seed: Syscalls.randomSeed())
        self.listeners = Listeners(
            control: listener, metrics: metricsListener,
            privilegedGroup: Syscalls.groupID(named: configuration.socketGroup),
            ownUserID: Syscalls.effectiveUserID())
        engine.accessRule =
            "only root, the daemon's user (uid \(listeners.ownUserID)) and members of group \(configuration.socketGroup) may"
        let now = Daemon.now()
        engine.reserveEpochs(below: store.loadedNextEpoch)
        self.eventLog = EventLog(
            capacity: configuration.maximumEvents, nextID: store.loadedEventsReservedID, restoring: store.loadedEvents)
        do {
            self.poller = try Poller()
            try poller.add(listener.fd, token: PollToken.controlListener, interest: .readable)
            if let metricsListener {
                try poller.add(metricsListener.fd, token: PollToken.metricsListener, interest: .readable)
            }
        } catch {
            throw StartupError("cannot set up the event loop", error)
        }
        let corpusDirectory = configuration.corpusDirectory(stateDirectory: options.stateDirectory)
        var events: [Event] = []
        for session in restored {
            let corpus =
                session.settings.isCorpusSession
                ? coverageStore.load(
                    session, corpusDirectory: corpusDirectory, limits: configuration.limits.corpus,
                    report: { sink.log($0, $1) })
                : nil
            events.append(engine.restore(session, now: now, corpus: corpus))
        }
        record(events)
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
            // The first pass: the sessions restored type again, and their
            // events are written like typed entries.
            runPass {
                pass.changedState = true
                pass.movesTickTimer = true
            }

            watchSignals()
            Syscalls.ignoreSignal(Signal.brokenPipe)
            systemd.start(summary: { [self] in statusLine }) { [self] in counters.wakeUps.note($0) }
            let metrics = listeners.metrics.map { ", metrics on \($0.description)" } ?? ""
            sink.log(.info, "listening on \(options.socketPath), state in \(options.stateDirectory)\(metrics)")
        }
    }

    var statusLine: String {
        let summary = engine.summary
        return
            "\(summary.sessions) sessions, \(summary.typing) typing, \(summary.typed) entries typed, \(summary.hits) hits"
    }

    /// Closes a connection: out of every subscription and the table, off
    /// the poller; a freed descriptor may let the listeners accept again.
    func close(_ connection: Connection) {
        guard connections.remove(connection) else { return }
        subscriptions.remove(connection, engine: &engine)
        poller.remove(connection.fd)
        Syscalls.close(connection.fd)
        resumeAccepting()
    }
}
