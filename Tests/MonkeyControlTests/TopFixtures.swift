import MonkeyCore

@testable import MonkeyControl

/// Sessions and views for the layout tests.
enum TopFixtures {
    static let now: UInt64 = 1_000_000_000_000
    static let wallClock = 1_796_083_562.0

    /// `count` sessions of every kind: with and without a target, stopped,
    /// hopeless, lucky.
    static func sessions(_ count: Int) -> [SessionFigures] {
        (0..<count).map { index in
            switch index % 4 {
            case 0:
                return SessionFigures(
                    name: "s\(index)", isRunning: true, monkeys: 4, interval: "50ms", intervalSeconds: 0.05,
                    target: "ab", typed: UInt64(index * 1000), entries: 1000, hits: UInt64(index), best: "ab",
                    expectedEntries: WideNumber(225.4), expectedSeconds: WideNumber(11.27), chance: WideNumber(0.63))
            case 1:
                return SessionFigures(
                    name: "s\(index)", isRunning: true, monkeys: 8, target: "monkey", typed: 12_345_678,
                    entries: 10_000,
                    best: "mon", expectedEntries: WideNumber(55_000_000), expectedSeconds: WideNumber(5_500_000),
                    chance: WideNumber(0.2))
            case 2:
                return SessionFigures(
                    name: "s\(index)", isRunning: false, target: "monkey", typed: 99, entries: 99, best: "m",
                    expectedEntries: nil, expectedSeconds: nil, chance: .zero)
            default:
                return SessionFigures(name: "s\(index)", isRunning: true, typed: 7, entries: 7)
            }
        }
    }

    static func snapshot(_ sessions: [SessionFigures]) -> TopSnapshot {
        TopSnapshot(
            daemon: DaemonFigures(version: "0.1.0", startTime: wallClock - 7384, clients: 2), sessions: sessions,
            takenAt: now)
    }

    static func view(_ sessions: [SessionFigures]) -> TopView {
        var view = TopView(socketPath: "/run/user/1000/monkeyd/monkeyd.sock")
        view.link = .connected
        view.show(snapshot(sessions))
        return view
    }

    static func frame(_ view: TopView, rows: Int = 24, columns: Int = 80, usesColor: Bool = true) -> TopLayout.Frame {
        TopLayout(size: Screen.Size(rows: rows, columns: columns), usesColor: usesColor, wallClock: wallClock, now: now)
            .frame(view)
    }

    /// The frame as a person sees it: one string per row.
    static func text(_ frame: TopLayout.Frame) -> [String] {
        frame.lines.map(\.plainText)
    }
}
