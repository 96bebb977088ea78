import MonkeyCore

/// The columns of `top`'s table and how each session fills them.
enum TopColumn: CaseIterable, Sendable {
    case name, state, monkeys, interval, rate, typed, hits, chance, wait, best

    var heading: String {
        switch self {
        case .name: "NAME"
        case .state: "STATE"
        case .monkeys: "MONKEYS"
        case .interval: "INTERVAL"
        case .rate: "RATE/s"
        case .typed: "TYPED"
        case .hits: "HITS"
        case .chance: "CHANCE"
        case .wait: "WAIT"
        case .best: "BEST"
        }
    }

    /// Columns of figures are right-aligned, as numbers are read.
    var isRightAligned: Bool {
        switch self {
        case .name, .state, .best, .interval: false
        case .monkeys, .rate, .typed, .hits, .chance, .wait: true
        }
    }

    /// The width the column keeps in a terminal (`name` and `best` grow).
    var minimumWidth: Int {
        switch self {
        case .name: 6
        case .state: 7
        case .monkeys: 7
        case .interval: 8
        case .rate: 7
        case .typed: 9
        case .hits: 6
        case .chance: 7
        case .wait: 9
        case .best: 16
        }
    }

    /// The order in which columns give way to a narrow terminal: the
    /// last one first.
    static let keptFirst: [TopColumn] = [
        .name, .state, .best, .hits, .rate, .chance, .wait, .typed, .monkeys, .interval,
    ]
}

/// The table's geometry for one width: which columns, how wide each.
struct TopTable: Equatable, Sendable {
    /// The columns shown, in screen order, with their widths.
    var columns: [(column: TopColumn, width: Int)]

    static func == (left: TopTable, right: TopTable) -> Bool {
        left.columns.elementsEqual(right.columns) { $0.column == $1.column && $0.width == $1.width }
    }

    /// One column before the table marks the selected row.
    static let markerWidth = 1

    /// Columns that fit in `width` terminal columns (beside the marker and
    /// one space between columns), `name` as wide as the longest name up
    /// to 32 (`longestName`, see `longestName(of:)`), `best` taking the rest.
    init(width: Int, longestName: Int) {
        var kept = TopColumn.keptFirst
        func total(_ columns: [TopColumn]) -> Int {
            Self.markerWidth + columns.reduce(0) { $0 + $1.minimumWidth } + max(columns.count - 1, 0)
        }
        while kept.count > 1 && total(kept) > width { kept.removeLast() }
        var widths: [TopColumn: Int] = [:]
        for column in kept { widths[column] = column.minimumWidth }
        var spare = max(width - total(kept), 0)
        let nameGrowth = min(max(min(longestName, 32) - TopColumn.name.minimumWidth, 0), spare)
        widths[.name, default: 0] += nameGrowth
        spare -= nameGrowth
        if widths[.best] != nil {
            widths[.best, default: 0] += spare
        } else if kept.count == 1 {
            widths[.name, default: 0] += spare
        }
        columns = TopColumn.allCases.compactMap { column in widths[column].map { (column, $0) } }
    }

    /// The display width of the longest name, as shown.
    static func longestName(of sessions: [SessionFigures]) -> Int {
        // By index: a loop over the values would copy each session's figures.
        var longest = 0
        for index in sessions.indices { longest = max(longest, DisplayWidth.of(Visible.escaped(sessions[index].name))) }
        return longest
    }

    /// Columns as wide as their widest cell, nothing cut: the table a pipe gets.
    init(fitting sessions: [SessionFigures], snapshot: TopSnapshot) {
        columns = TopColumn.allCases.map { column in
            var width = DisplayWidth.of(column.heading)
            for session in sessions {
                width = max(width, TopTable.cell(column, session, snapshot, width: nil, usesColor: false).width)
            }
            return (column, width)
        }
    }

    /// The headings line.
    func headings(marker: Bool) -> StyledText {
        var line = StyledText(marker ? " " : "")
        for (index, entry) in columns.enumerated() {
            if index > 0 { line.append(" ") }
            line.append(
                StyledText(entry.column.heading).fitted(to: entry.width, alignedRight: entry.column.isRightAligned))
        }
        return line
    }

    /// One session's row, the marker `>` first when `marker` is given.
    func row(_ session: SessionFigures, _ snapshot: TopSnapshot, marker: String?, usesColor: Bool) -> StyledText {
        var line = StyledText(marker ?? "")
        for (index, entry) in columns.enumerated() {
            if index > 0 { line.append(" ") }
            let cell = Self.cell(entry.column, session, snapshot, width: entry.width, usesColor: usesColor)
            line.append(cell.fitted(to: entry.width, alignedRight: entry.column.isRightAligned))
        }
        return line
    }

    /// What a session shows in a column; `width` nil: all of it.
    static func cell(
        _ column: TopColumn, _ session: SessionFigures, _ snapshot: TopSnapshot, width: Int?, usesColor: Bool
    ) -> StyledText {
        let style = { (style: TextStyle) in usesColor ? style : style.withoutColor }
        switch column {
        case .name:
            return StyledText(Visible.escaped(session.name), style(TextStyle(isBold: true)))
        case .state:
            return session.isRunning
                ? StyledText("running", style(TextStyle(color: .green)))
                : StyledText("stopped", style(TextStyle(color: .yellow)))
        case .monkeys:
            return StyledText(TopFormat.count(UInt64(max(session.monkeys, 0)), width: width ?? .max))
        case .interval:
            return StyledText(Visible.escaped(session.interval))
        case .rate:
            return StyledText(TopFormat.rate(snapshot.rate(of: session), width: width ?? .max))
        case .typed:
            return StyledText(TopFormat.count(session.typed, width: width ?? .max))
        case .hits:
            let text = TopFormat.count(session.hits, width: width ?? .max)
            return session.hits > 0 ? StyledText(text, style(TextStyle(color: .green, isBold: true))) : StyledText(text)
        case .chance:
            return StyledText(TopFormat.chance(session))
        case .wait:
            let text = TopFormat.wait(session)
            return session.isHopeless ? StyledText(text, style(TextStyle(color: .red))) : StyledText(text)
        case .best:
            // A corpus session's longest run stands where best progress does.
            if session.isCorpusSession {
                return StyledText("run " + TopFormat.count(session.longestRun, width: max(1, (width ?? .max) - 4)))
            }
            return BestProgress(session).drawn(width: width, usesColor: usesColor)
        }
    }
}

/// Best progress drawn against the target: the target's text with the
/// prefix typed so far highlighted and the rest dim, then `4/6`. A target
/// too long for the column shows the part around where progress stops.
struct BestProgress: Sendable {
    /// The target's characters, escaped for the terminal, with the number
    /// of them matched so far.
    let characters: [String]
    let matched: Int

    init(_ session: SessionFigures) {
        var characters: [String] = []
        var matched = 0
        var matchedScalars = 0
        let bestScalars = session.best.unicodeScalars.count
        for character in session.target {
            characters.append(Visible.escaped(String(character)))
            matchedScalars += character.unicodeScalars.count
            if matchedScalars <= bestScalars { matched += 1 }
        }
        self.characters = characters
        self.matched = matched
    }

    /// The styles of the matched prefix and of the rest.
    static func styles(usesColor: Bool) -> (matched: TextStyle, rest: TextStyle) {
        let matched = TextStyle(color: .green, isBold: true, isUnderlined: !usesColor)
        let rest = TextStyle(isDim: true)
        return usesColor ? (matched, rest) : (matched.withoutColor, rest)
    }

    func drawn(width: Int?, usesColor: Bool) -> StyledText {
        guard !characters.isEmpty else { return StyledText("-", TextStyle(isDim: true)) }
        let styles = Self.styles(usesColor: usesColor)
        let suffix = " \(matched)/\(characters.count)"
        let room = width.map { $0 - suffix.count } ?? .max
        guard room >= 4 else { return StyledText("\(matched)/\(characters.count)") }
        let widths = characters.map { DisplayWidth.of($0) }
        let total = widths.reduce(0, +)
        var line = StyledText()
        if total <= room {
            line.append(characters[..<matched].joined(), styles.matched)
            line.append(characters[matched...].joined(), styles.rest)
        } else {
            line = window(widths: widths, room: room, styles: styles)
        }
        line.append(suffix)
        return line
    }

    /// `…` + the end of the matched prefix + the start of the rest + `…`,
    /// with progress's edge about two thirds in.
    private func window(widths: [Int], room: Int, styles: (matched: TextStyle, rest: TextStyle)) -> StyledText {
        // Room for the characters between the ellipses.
        let inner = room - 2
        var start = matched
        var used = 0
        // Matched characters back from the edge, up to two thirds of the room.
        while start > 0 && used + widths[start - 1] <= inner * 2 / 3 {
            start -= 1
            used += widths[start]
        }
        var end = matched
        while end < widths.count && used + widths[end] <= inner {
            used += widths[end]
            end += 1
        }
        // Whatever the rest leaves unused goes to more of the matched part.
        while start > 0 && used + widths[start - 1] <= inner {
            start -= 1
            used += widths[start]
        }
        var line = StyledText()
        if start > 0 { line.append("…", styles.matched) }
        line.append(characters[start..<matched].joined(), styles.matched)
        line.append(characters[matched..<end].joined(), styles.rest)
        if end < widths.count { line.append("…", styles.rest) }
        return line
    }
}
