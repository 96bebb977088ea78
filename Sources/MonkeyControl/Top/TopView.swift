import MonkeyCore

/// A change of session state that `top` asks of the daemon.
enum TopRequest: Equatable, Sendable {
    case start(String)
    case stop(String)
    case clear(String)

    var session: String {
        switch self {
        case .start(let name), .stop(let name), .clear(let name): name
        }
    }

    /// The protocol's request line.
    var line: String {
        switch self {
        case .start(let name): RequestEncoder.line(.start, words: [name])
        case .stop(let name): RequestEncoder.line(.stop, words: [name])
        case .clear(let name): RequestEncoder.line(.clear, words: [name])
        }
    }
}

/// What the view asks its shell to do after a key or an answer: effects
/// returned, not performed.
enum TopEffect: Equatable, Sendable {
    case send(TopRequest)
    /// Follow this session's new entries in the lower pane (replacing any other).
    case showTail(String)
    case hideTail
    /// Ask for STATUS now rather than at the next second.
    case refresh
    case quit
}

/// Everything the full-screen view shows and remembers between frames,
/// and how keys and the daemon's answers change it. Pure: the time comes
/// in as a parameter; `TopLayout` draws it.
struct TopView: Sendable {
    /// Whether `top` is talking to the daemon.
    enum Link: Equatable, Sendable {
        case connecting
        case connected
        /// Since this wall-clock time, for this reason; reconnecting.
        case lost(since: Double, reason: String)
    }

    /// A question on the status line, waiting for its answer.
    enum Prompt: Equatable, Sendable {
        case confirmClear(String)
    }

    struct Message: Equatable, Sendable {
        enum Tone: Sendable { case info, warning }
        var text: String
        var tone: Tone
        /// Monotonic nanoseconds after which it is no longer shown.
        var until: UInt64
    }

    /// The lower pane: one session's newest entries.
    struct TailPane: Equatable, Sendable {
        struct Line: Equatable, Sendable {
            var number: String
            var text: String
            var isHit: Bool
            /// A `lost` record: entries skipped because `top` read too slowly.
            var skipped: String?
        }

        var session: String
        var lines: [Line] = []
        /// Why the stream ended, if it did.
        var ending: String?
        /// For a corpus session, its works' coverage instead of entries
        /// (nil: an entries pane), as the last COVERAGE answered.
        var works: [Work]?

        /// One work of a corpus session: its name, characters and those covered.
        struct Work: Equatable, Sendable {
            var name: String
            var characters: Int
            var covered: Int
        }

        /// Lines kept: more than any terminal shows.
        static let capacity = 500
    }

    /// The socket `top` talks to, for the banner.
    let socketPath: String
    private(set) var snapshot: TopSnapshot?
    private(set) var order: TopSortOrder = .name
    /// The snapshot's sessions in `order`.
    private(set) var rows: [SessionFigures] = []
    /// The display width of the longest name (see `TopTable`), worked out
    /// once a snapshot rather than at every frame.
    private(set) var longestName = 0
    /// The selected session, by name, so that it stays selected when rows move.
    private(set) var selected: String?
    /// The first row shown (the table scrolls to keep the selection in view).
    var firstRow = 0
    /// Rows the table showed last; what Page Up and Page Down move by.
    var pageSize = 10
    private(set) var prompt: Prompt?
    private(set) var message: Message?
    private(set) var tail: TailPane?
    var link: Link = .connecting
    /// The starts and stops the events stream told of since STATUS last did, by session.
    private(set) var news: [String: SessionNews] = [:]
    /// STATUS requests sent and answered on this connection: which answers
    /// already know which news.
    private var statusSent = 0
    private var statusAnswered = 0
    /// Where each session is in `snapshot.sessions`, built for the first
    /// event after a refresh (a walk through 10,000 names an event was
    /// most of what a busy stream of events cost).
    private var positionByName: [String: Int]?

    /// How long a message stays on the status line.
    static let messageNanoseconds: UInt64 = 5_000_000_000

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The selected session's row number in `rows`.
    var selectedIndex: Int? {
        guard let selected else { return nil }
        return rows.firstIndex { $0.name == selected }
    }

    /// A STATUS request went out.
    mutating func statusRequested() {
        statusSent += 1
    }

    /// A STATUS request was refused: its answer will not come.
    mutating func statusFailed() {
        statusAnswered += 1
    }

    /// The connection went: its answers will not come, and the next
    /// daemon's STATUS knows better than any news.
    mutating func statusLost() {
        statusAnswered = statusSent
        news = [:]
    }

    /// The answer to a STATUS: sorted, the news it cannot know yet shown
    /// over it, and the selection kept (or moved to the row where the
    /// selected session was, when it is gone).
    mutating func show(_ snapshot: consuming TopSnapshot) {
        statusAnswered += 1
        let answered = statusAnswered
        news = news.filter { $0.value.statusSentBefore >= answered }
        positionByName = nil
        if !news.isEmpty {
            for index in snapshot.sessions.indices {
                if let news = news[snapshot.sessions[index].name] {
                    snapshot.sessions[index] = news.applied(to: snapshot.sessions[index])
                }
            }
        }
        let previousIndex = selectedIndex
        self.snapshot = snapshot
        rows = order.sorted(snapshot)
        longestName = TopTable.longestName(of: rows)
        if selectedIndex == nil {
            selected = rows.isEmpty ? nil : rows[min(previousIndex ?? 0, rows.count - 1)].name
        }
    }

    /// What an event did to the view.
    enum Hearing: Equatable, Sendable {
        /// Shown: the screen wants drawing.
        case shown
        /// Only a new STATUS can tell what changed (a hit or best progress,
        /// shown only beside the TYPED of the same answer; a session `top`
        /// does not know, created, deleted, cleared, or changed settings).
        case needsStatus
    }

    /// An event from the daemon, shown at once when it can be: a start or
    /// a stop. A hit or best progress asks for STATUS instead, so that a
    /// row's counts always come from one answer (a hit heard beside the
    /// TYPED of an older answer showed a best that no entry typed by then
    /// could have made).
    mutating func heard(_ event: TopEvent) -> Hearing {
        let name: String
        let isRunning: Bool
        switch event {
        case .changed(let session):
            // Cleared or deleted: a start or stop heard of may no longer hold.
            if let session { news[session] = nil }
            return .needsStatus
        case .hit, .best:
            return .needsStatus
        case .started(let session):
            (name, isRunning) = (session, true)
        case .stopped(let session):
            (name, isRunning) = (session, false)
        }
        guard let index = position(of: name), let current = snapshot?.sessions[index] else { return .needsStatus }
        news[name] = SessionNews(isRunning: isRunning, statusSentBefore: statusSent)
        var figures = current
        figures.isRunning = isRunning
        if order == .name {
            // The rows are the snapshot's sessions: let go of them so that
            // the change is made in place rather than in a copy of all.
            rows = []
            snapshot?.sessions[index] = figures
            rows = snapshot?.sessions ?? []
        } else {
            snapshot?.sessions[index] = figures
            if let row = rows.firstIndex(where: { $0.name == name }) { rows[row] = figures }
        }
        // A start or stop changes the header's totals too, wherever the row is.
        return .shown
    }

    private mutating func position(of name: String) -> Int? {
        guard let sessions = snapshot?.sessions else { return nil }
        if positionByName == nil {
            var positions: [String: Int] = [:]
            positions.reserveCapacity(sessions.count)
            for index in sessions.indices { positions[sessions[index].name] = index }
            positionByName = positions
        }
        return positionByName?[name]
    }

    mutating func say(_ text: String, tone: Message.Tone = .info, now: UInt64) {
        message = Message(text: text, tone: tone, until: now + Self.messageNanoseconds)
    }

    /// The message, if it is still to be shown at `now`.
    func currentMessage(now: UInt64) -> Message? {
        guard let message, now < message.until else { return nil }
        return message
    }

    /// A key: what it changes here, and what the shell must do.
    mutating func handle(_ key: Key, now: UInt64) -> [TopEffect] {
        if case .confirmClear(let name) = prompt {
            prompt = nil
            if key == .character("y") || key == .character("Y") {
                say("clearing \(Visible.escaped(name))...", now: now)
                return [.send(.clear(name))]
            }
            say("not cleared", now: now)
            return key == .interrupt ? [.quit] : []
        }
        switch key {
        case .character("q"), .character("Q"), .interrupt:
            return [.quit]
        case .up: moveSelection(by: -1)
        case .down: moveSelection(by: 1)
        case .pageUp: moveSelection(by: -max(pageSize - 1, 1))
        case .pageDown: moveSelection(by: max(pageSize - 1, 1))
        case .home: moveSelection(by: -rows.count)
        case .end: moveSelection(by: rows.count)
        case .space:
            guard let session = selectedSession else { return nothingSelected(now) }
            let request: TopRequest = session.isRunning ? .stop(session.name) : .start(session.name)
            say("\(session.isRunning ? "stopping" : "starting") \(Visible.escaped(session.name))...", now: now)
            return [.send(request)]
        case .character("c"), .character("C"):
            guard let session = selectedSession else { return nothingSelected(now) }
            prompt = .confirmClear(session.name)
        case .enter:
            guard let session = selectedSession else { return nothingSelected(now) }
            if tail?.session == session.name {
                tail = nil
                return [.hideTail]
            }
            tail = TailPane(session: session.name, works: session.isCorpusSession ? [] : nil)
            return [.showTail(session.name)]
        case .escape:
            // Pressed to leave something: with nothing to leave, not worth a word.
            if tail != nil {
                tail = nil
                return [.hideTail]
            }
        case .character("o"), .character("O"):
            order = order.next
            if let snapshot { rows = order.sorted(snapshot) }
            // The last line says it beside the row, unless there is none.
            if selectedIndex == nil {
                say("sorted by \(order.rawValue)", now: now)
            } else {
                message = nil
            }
        case .control(0x0C):
            // Ctrl-L: the shell redraws every frame from scratch anyway on resize;
            // here it asks for fresh figures.
            return [.refresh]
        case .left, .right, .tab, .backspace, .control, .character:
            say("\(Self.name(of: key)) does nothing here; \(Self.keys)", tone: .warning, now: now)
        }
        return []
    }

    /// The keys, for the hint after one that does nothing.
    static let keys = "keys: up/down, PgUp/PgDn, space, c, enter, o, q"

    /// A key as a person would name it.
    static func name(of key: Key) -> String {
        switch key {
        case .character(let character): "'\(Visible.escaped(String(character)))'"
        case .control(let byte): "Ctrl-\(Character(Unicode.Scalar(byte + 0x40)))"
        case .left: "left"
        case .right: "right"
        case .tab: "tab"
        case .backspace: "backspace"
        case .up: "up"
        case .down: "down"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "home"
        case .end: "end"
        case .enter: "enter"
        case .space: "space"
        case .escape: "escape"
        case .interrupt: "Ctrl-C"
        }
    }

    private var selectedSession: SessionFigures? {
        selectedIndex.map { rows[$0] }
    }

    private mutating func nothingSelected(_ now: UInt64) -> [TopEffect] {
        say("no session selected", tone: .warning, now: now)
        return []
    }

    private mutating func moveSelection(by offset: Int) {
        guard !rows.isEmpty else { return }
        let index = selectedIndex ?? 0
        selected = rows[min(max(index + offset, 0), rows.count - 1)].name
    }

    /// The daemon's answer to a request `top` sent: its OK text, or the
    /// code and message of its ERR (a refusal, `denied`, among them).
    mutating func answered(_ request: TopRequest, _ outcome: Result<String?, ControlFailure>, now: UInt64)
        -> [TopEffect]
    {
        switch outcome {
        case .success(let text):
            let (said, warning) = Runner.splitWarning(text)
            if let warning {
                say("\(Visible.escaped(said ?? "")); warning: \(Visible.escaped(warning))", tone: .warning, now: now)
            } else {
                say(Visible.escaped(said ?? "done"), now: now)
            }
            if case .clear(let name) = request, tail?.session == name {
                tail?.lines.removeAll()
            }
            return [.refresh]
        case .failure(.daemon(let code, let text)):
            say("\(Visible.escaped(code)): \(Visible.escaped(text))", tone: .warning, now: now)
            return []
        case .failure(let failure):
            say(failure.messageLines.first ?? "failed", tone: .warning, now: now)
            return []
        }
    }

    /// A record of the tail stream: an entry or a count of skipped ones.
    mutating func tailed(_ record: Record) {
        guard tail != nil else { return }
        switch record.type {
        case "entry":
            tail?.lines.append(
                TailPane.Line(
                    number: Visible.escaped(record.value("number") ?? "?"),
                    text: Visible.escaped(record.value("text") ?? ""), isHit: record.value("hit") == "yes"))
        case "lost":
            tail?.lines.append(
                TailPane.Line(
                    number: "", text: "", isHit: false, skipped: Visible.escaped(record.value("count") ?? "?")))
        default:
            return
        }
        if let count = tail?.lines.count, count > TailPane.capacity {
            tail?.lines.removeFirst(count - TailPane.capacity)
        }
    }

    /// A COVERAGE answer for the lower pane: its `work` records replace the works shown.
    mutating func covered(_ records: [Record], of session: String) {
        guard tail?.session == session, tail?.works != nil else { return }
        tail?.works = records.filter { $0.type == "work" }.map { record in
            TailPane.Work(
                name: Visible.escaped(record.value("name") ?? "?"),
                characters: Int(record.value("chars") ?? "") ?? 0, covered: Int(record.value("covered") ?? "") ?? 0)
        }
    }

    /// The tail stream ended (the session was deleted, the daemon went away).
    mutating func tailEnded(_ reason: String) {
        tail?.ending = reason
    }
}
