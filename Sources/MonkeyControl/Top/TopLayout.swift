/// Draws `top`: a pure function from the view's state and a terminal size
/// to lines of styled text. From the top: the daemon's figures (or a
/// banner while it is gone), the keys, the table's headings, one row per
/// session, the tail pane when open, and the status line at the bottom.
struct TopLayout: Sendable {
    var size: Screen.Size
    var usesColor: Bool
    /// Wall-clock seconds since the Unix epoch: uptime, time since the daemon went.
    var wallClock: Double
    /// Monotonic nanoseconds: whether a message is still shown.
    var now: UInt64

    /// One drawing, with where the table scrolled to.
    struct Frame: Equatable, Sendable {
        var lines: [StyledText]
        /// The first session row shown.
        var firstRow: Int
        /// How many session rows fit.
        var tableRows: Int
    }

    /// Lines above the table (figures, keys, headings) and below it (status).
    static let headerRows = 3
    static let footerRows = 1

    func frame(_ view: TopView) -> Frame {
        let width = size.columns
        var lines = [header(view).truncated(to: width), hints(view).truncated(to: width)]
        let snapshot = view.snapshot ?? TopSnapshot(daemon: DaemonFigures(), sessions: [], takenAt: 0)
        let table = TopTable(width: width, longestName: view.longestName)
        lines.append(table.headings(marker: true).fitted(to: width).restyled { $0.reversed })

        let available = max(size.rows - Self.headerRows - Self.footerRows, 0)
        var tailRows = 0
        if view.tail != nil && available >= 6 {
            tailRows = max(available / 3, 3)
        }
        let tableRows = max(available - (tailRows > 0 ? tailRows + 1 : 0), 0)
        let firstRow = Self.firstRow(view, tableRows: tableRows)
        if view.rows.isEmpty && tableRows > 0 {
            let empty =
                view.snapshot == nil
                ? "" : "no sessions: start one with 'monkeyctl start NAME --target TEXT'"
            lines.append(StyledText(empty, TextStyle(isDim: true)).truncated(to: width))
            lines += Array(repeating: StyledText(), count: tableRows - 1)
        } else {
            let selected = view.selectedIndex
            for index in firstRow..<(firstRow + tableRows) {
                guard index < view.rows.count else {
                    lines.append(StyledText())
                    continue
                }
                let isSelected = index == selected
                let row = table.row(
                    view.rows[index], snapshot, marker: isSelected ? ">" : " ", usesColor: usesColor
                ).fitted(to: width)
                lines.append(isSelected ? row.restyled { $0.reversed } : row)
            }
        }
        if tailRows > 0, let tail = view.tail {
            lines += tailPane(tail, rows: tailRows)
        }
        while lines.count < size.rows - Self.footerRows { lines.append(StyledText()) }
        lines.append(statusLine(view).truncated(to: width))
        return Frame(lines: Array(lines.prefix(max(size.rows, 0))), firstRow: firstRow, tableRows: tableRows)
    }

    /// The first row to show: the one shown before, moved as little as
    /// keeps the selection in view and the table full.
    static func firstRow(_ view: TopView, tableRows: Int) -> Int {
        guard tableRows > 0 else { return 0 }
        var first = view.firstRow
        if let selected = view.selectedIndex {
            if selected < first { first = selected }
            if selected >= first + tableRows { first = selected - tableRows + 1 }
        }
        return min(max(first, 0), max(view.rows.count - tableRows, 0))
    }

    private func paint(_ style: TextStyle) -> TextStyle {
        usesColor ? style : style.withoutColor
    }

    /// `monkeyd 0.1.0 | up 2h 03m | 3 sessions, 2 typing | 2 clients | typed 12,345 | 7 hits`,
    /// or the banner while the daemon is gone.
    private func header(_ view: TopView) -> StyledText {
        let path = Visible.escaped(view.socketPath)
        switch view.link {
        case .lost(let since, let reason):
            let gone = TopFormat.uptime(wallClock - since)
            return StyledText(
                " monkeyd is gone (\(Visible.escaped(reason))): reconnecting to \(path) for \(gone) ",
                paint(TextStyle(color: .red, isBold: true, isReversed: true)))
        case .connecting where view.snapshot == nil:
            return StyledText("connecting to monkeyd at \(path)...", TextStyle(isDim: true))
        case .connecting, .connected:
            break
        }
        guard let snapshot = view.snapshot else { return StyledText() }
        let daemon = snapshot.daemon
        var line = StyledText("monkeyd \(Visible.escaped(daemon.version ?? "?"))", TextStyle(isBold: true))
        let separator = " | "
        if let start = daemon.startTime {
            line.append(separator + "up " + TopFormat.uptime(wallClock - start))
        }
        let count = snapshot.sessions.count
        line.append(
            separator + "\(TopFormat.count(UInt64(count))) session\(count == 1 ? "" : "s"), "
                + "\(TopFormat.count(UInt64(snapshot.runningCount))) typing")
        if let clients = daemon.clients {
            line.append(separator + "\(clients) client\(clients == 1 ? "" : "s")")
        }
        line.append(separator + "typed \(TopFormat.count(snapshot.totalTyped))")
        let hits = snapshot.totalHits
        line.append(separator)
        line.append(
            "\(TopFormat.count(hits)) hit\(hits == 1 ? "" : "s")", hits > 0 ? paint(TextStyle(color: .green)) : .plain)
        return line
    }

    /// What each key does next: `o` names the order it sorts by when pressed.
    private func hints(_ view: TopView) -> StyledText {
        StyledText(
            "up/down select  space start/stop  c clear  enter tail  o sort by \(view.order.next.rawValue)  q quit",
            TextStyle(isDim: true))
    }

    private func tailPane(_ tail: TopView.TailPane, rows: Int) -> [StyledText] {
        if let works = tail.works { return coveragePane(tail, works, rows: rows) }
        let width = size.columns
        let title = "-- tail of \(Visible.escaped(tail.session)) (enter hides) "
        let rule = title + String(repeating: "-", count: max(width - DisplayWidth.of(title), 0))
        var lines = [StyledText(rule, TextStyle(isBold: true)).truncated(to: width)]
        var shown: [StyledText] = tail.lines.suffix(rows).map { line in
            if let skipped = line.skipped {
                return StyledText("... \(skipped) entries skipped", paint(TextStyle(color: .yellow)))
            }
            guard line.isHit else { return StyledText("\(line.number). \(line.text)") }
            return StyledText("\(line.number). \(line.text)  *hit*", paint(TextStyle(color: .green, isBold: true)))
        }
        if let ending = tail.ending {
            shown.append(StyledText("(tail ended: \(Visible.escaped(ending)))", TextStyle(isDim: true)))
        } else if shown.isEmpty {
            shown.append(StyledText("(waiting for entries)", TextStyle(isDim: true)))
        }
        lines += shown.suffix(rows).map { $0.truncated(to: width) }
        while lines.count < rows + 1 { lines.append(StyledText()) }
        return lines
    }

    /// A corpus session's works: name, percent covered and a bar, in corpus order.
    private func coveragePane(_ tail: TopView.TailPane, _ works: [TopView.TailPane.Work], rows: Int) -> [StyledText] {
        let width = size.columns
        let title = "-- coverage of \(Visible.escaped(tail.session)) (enter hides) "
        let rule = title + String(repeating: "-", count: max(width - DisplayWidth.of(title), 0))
        var lines = [StyledText(rule, TextStyle(isBold: true)).truncated(to: width)]
        let nameWidth = min(works.map { DisplayWidth.of($0.name) }.max() ?? 0, 32)
        var shown: [StyledText] = works.prefix(rows).map { work in
            let name = work.name + String(repeating: " ", count: max(nameWidth - DisplayWidth.of(work.name), 0))
            let percent = CoverageReport.percent(work.covered, of: work.characters)
            let text =
                "\(name)  \(String(repeating: " ", count: max(7 - percent.count, 0)))\(percent)  "
                + CoverageReport.bar(work.covered, of: work.characters)
            return work.covered == work.characters
                ? StyledText(text, paint(TextStyle(color: .green, isBold: true))) : StyledText(text)
        }
        if let ending = tail.ending {
            shown.append(StyledText("(coverage ended: \(Visible.escaped(ending)))", TextStyle(isDim: true)))
        } else if works.isEmpty {
            shown.append(StyledText("(asking for the works)", TextStyle(isDim: true)))
        }
        lines += shown.prefix(rows).map { $0.truncated(to: width) }
        while lines.count < rows + 1 { lines.append(StyledText()) }
        return lines
    }

    private func statusLine(_ view: TopView) -> StyledText {
        if case .confirmClear(let name) = view.prompt {
            return StyledText(
                "clear \(Visible.escaped(name))? Every entry goes and numbering restarts at 1. "
                    + "y clears, any other key keeps them",
                paint(TextStyle(color: .yellow, isBold: true, isReversed: true)))
        }
        if let message = view.currentMessage(now: now) {
            switch message.tone {
            case .info: return StyledText(message.text)
            case .warning: return StyledText(message.text, paint(TextStyle(color: .yellow, isBold: true)))
            }
        }
        guard let index = view.selectedIndex else { return StyledText() }
        return StyledText(
            "row \(TopFormat.count(UInt64(index + 1))) of \(TopFormat.count(UInt64(view.rows.count))), "
                + "sorted by \(view.order.rawValue)",
            TextStyle(isDim: true))
    }

    /// The table a pipe gets (and `--once`): the daemon's figures, the
    /// headings and every session, sorted by name. With `width`, cut to
    /// it as on screen; without, every column as wide as its widest cell.
    static func snapshotTable(_ snapshot: TopSnapshot, socketPath: String, width: Int?, wallClock: Double)
        -> [String]
    {
        var view = TopView(socketPath: socketPath)
        view.link = .connected
        view.show(snapshot)
        let layout = TopLayout(
            size: Screen.Size(rows: 0, columns: width ?? .max), usesColor: false, wallClock: wallClock, now: 0)
        let header = layout.header(view)
        let table =
            width.map { TopTable(width: $0, longestName: view.longestName) }
            ?? TopTable(fitting: snapshot.sessions, snapshot: snapshot)
        var lines = [(width.map { header.truncated(to: $0) } ?? header).plainText]
        lines.append(table.headings(marker: false).plainText)
        for session in snapshot.sessions {
            lines.append(table.row(session, snapshot, marker: nil, usesColor: false).plainText)
        }
        return lines.map { line in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
