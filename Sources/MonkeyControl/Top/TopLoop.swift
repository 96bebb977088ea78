import MonkeyCore
import MonkeyShell

/// The shell of `monkeyctl top`: one `poll(2)` loop over the keyboard, a
/// signalfd (resize, Ctrl-C sent as a signal, SIGTERM, SIGHUP) and the
/// connections to the daemon; it feeds what arrives to `TopView` and
/// draws with `TopLayout` and `ScreenRenderer`. Every I/O call goes
/// through MonkeyShell; this type only decides when.
///
/// Refreshes: STATUS once a second (`--delay`), and the EVENTS stream
/// on a connection of its own: a start or a stop is shown as soon as it
/// is heard (`TopView.heard`); anything else (a hit, best progress, a
/// session created, deleted, cleared, changed) asks for STATUS at once,
/// so that a row's counts come from one answer, but never sooner after
/// the last one than `shortestRefreshGap` for the number of sessions, so
/// that the cost of refreshing stays bounded however busy the daemon is.
final class TopLoop {
    /// How the loop ended.
    enum Ending: Equatable {
        /// `q`, Ctrl-C, or the terminal went away.
        case quit
        /// A signal that should end the process as it would have without `top`.
        case signal(Int32)
    }

    /// What the loop waits on, in `poll(2)` order.
    private enum Source {
        case keys, signals, daemon, tail, events
    }

    private let connector: Connector
    private let terminal: FullScreenTerminal
    private let signals: Int32
    private let usesColor: Bool
    private var view: TopView
    private var keys = KeyDecoder()
    private var channel: TopChannel?
    private var tailChannel: TopChannel?
    /// The records of the COVERAGE under way on `tailChannel`.
    private var coverageRecords: [Record] = []
    /// The EVENTS stream; nil before it is opened, after it broke, or when
    /// the daemon does not know EVENTS.
    private var eventsChannel: TopChannel?
    /// The daemon answered EVENTS with `unknown-command`: poll only.
    private var eventsAreUnknown = false
    private var nextEventsAttempt: UInt64 = 0
    /// When the last STATUS was asked for.
    private var lastRefresh: UInt64 = 0
    /// How often STATUS is asked for without news (`--delay`).
    private let refreshPeriod: UInt64
    /// The daemon's figures on the current connection.
    private var daemon = DaemonFigures()
    /// STATUS lines of the response being read.
    private var incoming: [SessionFigures] = []
    private var statusReader = StatusReader()
    /// Whether rates may be measured from the view's snapshot: not from
    /// one of a daemon before a reconnection.
    private var isSnapshotCurrent = false
    /// Sessions in the view's snapshot (what the pacing of requests goes by).
    private var sessionCount: Int { view.snapshot?.sessions.count ?? 0 }
    /// What the terminal shows now; nil: draw it all next time.
    private var screen: Screen?
    private var isDirty = true
    private var lastDraw: UInt64 = 0
    /// When the message on the status line is due to go.
    private var messageShownUntil: UInt64?
    private var nextRefresh: UInt64 = 0
    private var nextMetrics: UInt64 = 0
    private var nextReconnect: UInt64 = 0
    /// When the keys held back by the decoder are given up waiting for.
    private var keysDeadline: UInt64?
    private var ending: Ending?

    static let second: UInt64 = 1_000_000_000
    /// How often STATUS is asked for unless `--delay` says otherwise.
    static let defaultRefreshPeriod = second
    /// The fastest the screen is redrawn (a busy tail pane wants more).
    static let shortestFrame: UInt64 = 33_000_000
    /// How often a lost daemon is tried again.
    static let reconnectPeriod: UInt64 = 500_000_000
    /// Entries the tail pane starts with.
    static let tailBacklog = 50

    /// Takes over `terminal`; `channel` is the first connection, made
    /// before the screen was taken so that an absent daemon is an
    /// ordinary error.
    init(
        connector: Connector, channel: TopChannel, terminal: FullScreenTerminal, signals: Int32, usesColor: Bool,
        refreshPeriod: UInt64 = TopLoop.defaultRefreshPeriod
    ) {
        self.connector = connector
        self.refreshPeriod = refreshPeriod
        self.channel = channel
        self.terminal = terminal
        self.signals = signals
        self.usesColor = usesColor
        view = TopView(socketPath: connector.place)
    }

    /// Runs until `q`, Ctrl-C or a terminating signal.
    func run() -> Ending {
        if let channel { greet(channel) }
        while ending == nil {
            let now = Syscalls.monotonicNanoseconds()
            if channel == nil && now >= nextReconnect { reconnect(now: now) }
            if channel != nil && eventsChannel == nil && !eventsAreUnknown && now >= nextEventsAttempt {
                openEvents(now: now)
            }
            if channel != nil && now >= nextRefresh { refresh(now: now) }
            if let until = messageShownUntil, now >= until {
                messageShownUntil = nil
                isDirty = true
            }
            if isDirty && now >= lastDraw + Self.shortestFrame { draw(now: now) }
            wait(now: now)
        }
        return ending ?? .quit
    }

    // MARK: waiting

    private func wait(now: UInt64) {
        var sources: [(Source, Int32)] = [(.keys, terminal.input), (.signals, signals)]
        if let channel { sources.append((.daemon, channel.fd)) }
        if let tailChannel { sources.append((.tail, tailChannel.fd)) }
        if let eventsChannel { sources.append((.events, eventsChannel.fd)) }
        let ready = Syscalls.waitReadable(sources.map(\.1), timeoutMilliseconds: timeout(now: now))
        for (index, (source, _)) in sources.enumerated() where ready[index] {
            switch source {
            case .keys: readKeys()
            case .signals: readSignals()
            case .daemon: receiveFromDaemon()
            case .tail: receiveTail()
            case .events: receiveEvents()
            }
        }
        if let deadline = keysDeadline, Syscalls.monotonicNanoseconds() >= deadline {
            keysDeadline = nil
            apply(keys.flush())
        }
    }

    /// Until the next thing due: a refresh, a reconnection, a frame, the
    /// end of an escape sequence, a message to take down, the banner's clock.
    private func timeout(now: UInt64) -> Int32 {
        var deadlines: [UInt64] = []
        if channel != nil {
            deadlines.append(nextRefresh)
            if eventsChannel == nil && !eventsAreUnknown { deadlines.append(nextEventsAttempt) }
        } else {
            deadlines.append(nextReconnect)
        }
        if isDirty { deadlines.append(lastDraw + Self.shortestFrame) }
        if let keysDeadline { deadlines.append(keysDeadline) }
        if let messageShownUntil { deadlines.append(messageShownUntil) }
        let next = deadlines.min() ?? now + Self.second
        let milliseconds = next > now ? (next - now + 999_999) / 1_000_000 : 0
        return Int32(min(milliseconds, 1000))
    }

    // MARK: the keyboard and signals

    private func readKeys() {
        guard let bytes = terminal.readKeys() else {
            ending = .quit
            return
        }
        apply(keys.feed(bytes))
        keysDeadline =
            keys.hasPending
            ? Syscalls.monotonicNanoseconds() + UInt64(KeyDecoder.escapeTimeout) * 1_000_000 : nil
    }

    private func apply(_ pressed: [Key]) {
        for key in pressed {
            let now = Syscalls.monotonicNanoseconds()
            let effects = view.handle(key, now: now)
            isDirty = true
            for effect in effects { carryOut(effect, now: now) }
            if ending != nil { return }
        }
    }

    private func readSignals() {
        for signal in Syscalls.pendingSignals(signals) {
            switch signal {
            case Signal.windowChanged:
                screen = nil
                isDirty = true
            case Signal.interrupt:
                ending = .quit
            default:
                ending = .signal(signal)
            }
        }
    }

    // MARK: effects

    private func carryOut(_ effect: TopEffect, now: UInt64) {
        switch effect {
        case .quit:
            ending = .quit
        case .refresh:
            refreshNow()
        case .send(let request):
            guard let channel else {
                view.say("not sent: monkeyd is gone", tone: .warning, now: now)
                return
            }
            do {
                try channel.send(request.line, for: .change(request))
            } catch {
                lose(error, now: now)
            }
        case .showTail(let session):
            openTail(session, now: now)
        case .hideTail:
            tailChannel = nil
        }
    }

    /// Asks for STATUS as soon as the one under way (if any) is answered.
    private func refreshNow() {
        nextRefresh = 0
    }

    // MARK: the daemon

    /// HELLO, METRICS and STATUS on a new connection.
    private func greet(_ channel: TopChannel) {
        daemon = DaemonFigures()
        do {
            try channel.send(RequestEncoder.line(.hello), for: .hello)
        } catch {
            lose(error, now: Syscalls.monotonicNanoseconds())
        }
        nextMetrics = 0
        refreshNow()
    }

    private func refresh(now: UInt64) {
        guard let channel, !channel.isWaitingForStatus else { return }
        do {
            if now >= nextMetrics && !channel.isWaiting(for: .metrics) {
                try channel.send(RequestEncoder.line(.metrics), for: .metrics)
                nextMetrics = now + Self.metricsPeriod(sessions: sessionCount)
            }
            try channel.send(RequestEncoder.line(.status), for: .status)
            view.statusRequested()
            askCoverage()
            lastRefresh = now
            nextRefresh = now + refreshPeriod
        } catch {
            lose(error, now: now)
        }
    }

    /// The soonest STATUS may follow the one before when an event asks
    /// for it: 50 µs a session, from 30 ms (at most 600 sessions) to half a
    /// second (10,000), so that refreshes cost at most about what a
    /// second's would with 10,000 sessions.
    static func shortestRefreshGap(sessions: Int) -> UInt64 {
        min(max(30_000_000, UInt64(sessions) * 50_000), 500_000_000)
    }

    /// METRICS lists every session ten times over: with many sessions it
    /// is asked less often (every second up to 333 sessions, then 3 ms per
    /// session: every 30 s with 10,000, where one costs the daemon about
    /// 85 ms), as only the client count and start time are read from it.
    static func metricsPeriod(sessions: Int) -> UInt64 {
        max(second, UInt64(sessions) * 3_000_000)
    }

    private func receiveFromDaemon() {
        guard let channel else { return }
        do {
            try channel.receive { arrival in
                switch arrival {
                case .line(let line, .status):
                    if let session = statusReader.read(line) { incoming.append(session) }
                case .line(let line, .metrics):
                    daemon.read(metricsLine: line)
                case .line:
                    break
                case .finished(let request, let outcome):
                    finished(request, outcome)
                }
            }
        } catch {
            lose(error, now: Syscalls.monotonicNanoseconds())
        }
    }

    private func finished(_ request: TopChannel.Request, _ outcome: Result<String?, ControlFailure>) {
        let now = Syscalls.monotonicNanoseconds()
        if case .failure(.daemon(let code, _)) = outcome, code == ErrorCode.shuttingDown.rawValue {
            lose(.connectionLost(reason: "monkeyd is shutting down"), now: now)
            return
        }
        switch request {
        case .hello:
            if case .success(let text) = outcome { daemon.read(hello: text ?? "") }
        case .metrics, .tail, .coverage, .events:
            break
        case .status:
            statusReader.finish()
            guard case .success = outcome else {
                incoming = []
                view.statusFailed()
                return
            }
            let previous = isSnapshotCurrent ? view.snapshot : nil
            let taken = TopSnapshot.taking(&incoming, daemon: daemon, takenAt: now, previous: previous)
            incoming.reserveCapacity(taken.sessions.count)
            view.show(taken)
            isSnapshotCurrent = true
            isDirty = true
        case .change(let change):
            for effect in view.answered(change, outcome, now: now) { carryOut(effect, now: now) }
            isDirty = true
        }
    }

    /// The daemon went away (or broke the protocol): say so, and try again.
    private func lose(_ failure: ControlFailure, now: UInt64) {
        channel = nil
        tailChannel = nil
        eventsChannel = nil
        nextEventsAttempt = 0
        view.statusLost()
        statusReader.forget()
        incoming = []
        if case .lost = view.link {
        } else {
            view.link = .lost(since: Syscalls.wallClockSeconds(), reason: Self.reason(failure))
        }
        if view.tail != nil { view.tailEnded("monkeyd went away") }
        nextReconnect = now + Self.reconnectPeriod
        isDirty = true
    }

    private static func reason(_ failure: ControlFailure) -> String {
        switch failure {
        case .connectionLost(let reason): reason
        case .unreachable(_, let error): error.reason
        case .hostUnreachable(_, let said), .hostLost(_, let said): RemoteFailure.reason(said)
        case .someHostsFailed(_, _, let first): reason(first)
        case .hostsDiffer(_, _, let what): what
        case .malformedReply: "a reply that is not monkeyd's"
        case .daemon(let code, _): code
        case .usage, .interrupted: "?"
        }
    }

    private func reconnect(now: UInt64) {
        let connected: TopChannel
        do {
            connected = try TopChannel(connector: connector)
        } catch {
            view.link = .lost(since: lostSince ?? Syscalls.wallClockSeconds(), reason: Self.reason(error))
            nextReconnect = now + Self.reconnectPeriod
            isDirty = true
            return
        }
        channel = connected
        if case .lost = view.link { view.say("reconnected to monkeyd", now: now) }
        view.link = .connected
        isSnapshotCurrent = false
        greet(connected)
        if let tail = view.tail { openTail(tail.session, now: now) }
        isDirty = true
    }

    private var lostSince: Double? {
        if case .lost(let since, _) = view.link { return since }
        return nil
    }

    // MARK: events

    /// EVENTS without `after=`: only what happens from now on, streamed
    /// until `top` goes (its connection closes with it).
    private func openEvents(now: UInt64) {
        nextEventsAttempt = now + Self.reconnectPeriod
        do {
            let connected = try TopChannel(connector: connector)
            try connected.send(RequestEncoder.line(.events), for: .events)
            eventsChannel = connected
        } catch {
            // The main connection finds out whether the daemon is gone.
        }
    }

    private func receiveEvents() {
        guard let eventsChannel else { return }
        let now = Syscalls.monotonicNanoseconds()
        do {
            try eventsChannel.receive { arrival in
                switch arrival {
                case .line(let line, _):
                    guard let record = try? ResponseDecoder.record(String(decoding: line, as: UTF8.self)),
                        let event = TopEvent(record)
                    else { return }
                    switch view.heard(event) {
                    case .shown: isDirty = true
                    case .needsStatus: refreshSoon(now: now)
                    }
                case .finished(_, let outcome):
                    if case .failure(.daemon(let code, _)) = outcome, code == ErrorCode.unknownCommand.rawValue {
                        eventsAreUnknown = true
                    }
                    self.eventsChannel = nil
                }
            }
        } catch {
            self.eventsChannel = nil
        }
    }

    /// STATUS as soon as the shortest gap after the last one allows (and
    /// the one under way, if any, is answered).
    private func refreshSoon(now: UInt64) {
        let gap = Self.shortestRefreshGap(sessions: sessionCount)
        nextRefresh = min(nextRefresh, max(now, lastRefresh + gap))
    }

    // MARK: the tail pane

    private func openTail(_ session: String, now: UInt64) {
        tailChannel = nil
        guard channel != nil else { return }
        do {
            let connected = try TopChannel(connector: connector)
            tailChannel = connected
            if view.tail?.works != nil {
                askCoverage()
            } else {
                let line = RequestEncoder.line(
                    .tail, words: [session], settings: [("last", String(Self.tailBacklog))])
                try connected.send(line, for: .tail(session))
            }
        } catch {
            view.tailEnded("could not follow it: \(Self.reason(error))")
        }
        isDirty = true
    }

    /// A corpus session's pane: COVERAGE again (with each STATUS), unless
    /// one is under way.
    private func askCoverage() {
        guard let tailChannel, let tail = view.tail, tail.works != nil,
            !tailChannel.isWaiting(for: .coverage(tail.session))
        else { return }
        do {
            try tailChannel.send(RequestEncoder.line(.coverage, words: [tail.session]), for: .coverage(tail.session))
        } catch {
            self.tailChannel = nil
            view.tailEnded(Self.reason(error))
        }
    }

    private func receiveTail() {
        guard let tailChannel else { return }
        do {
            try tailChannel.receive { arrival in
                switch arrival {
                case .line(let line, .coverage):
                    if let record = try? ResponseDecoder.record(String(decoding: line, as: UTF8.self)) {
                        coverageRecords.append(record)
                    }
                case .finished(.coverage(let session), .success):
                    view.covered(coverageRecords, of: session)
                    coverageRecords.removeAll()
                case .line(let line, _):
                    if let record = try? ResponseDecoder.record(String(decoding: line, as: UTF8.self)) {
                        view.tailed(record)
                    }
                case .finished(_, let outcome):
                    switch outcome {
                    case .success: view.tailEnded("ended")
                    case .failure(.daemon(let code, let text)): view.tailEnded("\(code): \(text)")
                    case .failure(let failure): view.tailEnded(failure.messageLines.first ?? "failed")
                    }
                    self.tailChannel = nil
                }
            }
        } catch {
            self.tailChannel = nil
            view.tailEnded(Self.reason(error))
        }
        isDirty = true
    }

    // MARK: drawing

    private func draw(now: UInt64) {
        guard let size = terminal.size else { return }
        let layout = TopLayout(
            size: Screen.Size(rows: size.rows, columns: size.columns), usesColor: usesColor,
            wallClock: Syscalls.wallClockSeconds(), now: now)
        let frame = layout.frame(view)
        view.firstRow = frame.firstRow
        view.pageSize = frame.tableRows
        let next = Screen(size: layout.size, lines: frame.lines)
        let bytes = ScreenRenderer.update(from: screen, to: next)
        if !bytes.isEmpty { terminal.write(bytes) }
        screen = next
        lastDraw = now
        isDirty = false
        messageShownUntil = view.currentMessage(now: now)?.until
    }
}
