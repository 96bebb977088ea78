import MonkeyCore

/// The orders `o` steps through. Each puts the most interesting session
/// first; ties go by name.
enum TopSortOrder: String, CaseIterable, Sendable {
    case name, rate, typed, hits, chance, wait, best

    /// The next order, after the last the first again.
    var next: TopSortOrder {
        let all = Self.allCases
        let index = all.firstIndex(of: self) ?? 0
        return all[(index + 1) % all.count]
    }

    /// The sessions of `snapshot` in this order.
    func sorted(_ snapshot: TopSnapshot) -> [SessionFigures] {
        switch self {
        case .name:
            // The daemon lists them by name already.
            return snapshot.sessions
        case .rate:
            return by(snapshot.sessions) { snapshot.rate(of: $0) }
        case .typed:
            return by(snapshot.sessions) { Double($0.typed) }
        case .hits:
            return by(snapshot.sessions) { Double($0.hits) }
        case .chance:
            // A chance of 0 before none at all (no target).
            return by(snapshot.sessions) {
                $0.hasTarget ? max(Self.logarithm($0.chance ?? .zero), -Double.greatestFiniteMagnitude) : -.infinity
            }
        case .wait:
            // The soonest expected hit first; never and no target last.
            return by(snapshot.sessions) { $0.expectedSeconds.map { -Self.logarithm($0) } ?? -.infinity }
        case .best:
            return by(snapshot.sessions) { $0.hasTarget ? $0.progress : -1 }
        }
    }

    /// The natural logarithm, which orders numbers far beyond a double's range.
    private static func logarithm(_ number: WideNumber) -> Double {
        number.isZero ? -.infinity : number.naturalLogarithm
    }

    /// Largest key first, computed once per session; ties by name.
    private func by(_ sessions: [SessionFigures], _ key: (SessionFigures) -> Double) -> [SessionFigures] {
        let keyed = sessions.map { (key: key($0), session: $0) }
        return keyed.sorted { left, right in
            if left.key != right.key { return left.key > right.key }
            return left.session.name < right.session.name
        }.map(\.session)
    }
}
