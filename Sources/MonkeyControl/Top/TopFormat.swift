import MonkeyCore

/// The figures of `top` in few columns: counts, rates, chances and waits,
/// written as every human view writes them (`HumanNumbers`), squeezed
/// only where a column is too narrow.
enum TopFormat {
    /// `17,576`.
    static func count(_ value: UInt64) -> String {
        HumanNumbers.count(value)
    }

    /// `17,576` when it fits in `width` columns, else `17.6k`, `1.23M`,
    /// `12.3G` ... `18.4E`.
    static func count(_ value: UInt64, width: Int) -> String {
        let grouped = count(value)
        guard grouped.count > width else { return grouped }
        let units: [(suffix: String, size: Double)] = [
            ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15), ("E", 1e18),
        ]
        let number = Double(value)
        for unit in units where number < unit.size * 999.5 {
            return significant(number / unit.size) + unit.suffix
        }
        return significant(number / 1e18) + "E"
    }

    /// Entries a second: `0`, `0.5`, `9.5`, `10`, `1,000`, `12.3k`.
    static func rate(_ value: Double, width: Int = 7) -> String {
        guard value.isFinite, value > 0 else { return "0" }
        if value < 9.95 { return tenths(value) }
        return count(UInt64(value.rounded()), width: width)
    }

    /// 3 significant digits: `1.23`, `12.3`, `123`.
    private static func significant(_ value: Double) -> String {
        if value >= 99.5 { return String(Int(value.rounded())) }
        if value >= 9.95 { return tenths(value) }
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// One decimal: `0.5`, `9.5`, `12.0`.
    static func tenths(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The chance so far: `63 %`, `4.5 %`, `0.31 %`, `<0.01 %`, `0 %`; `-` without a target.
    static func chance(_ session: SessionFigures) -> String {
        // A corpus session's coverage stands where a target's chance does.
        if session.isCorpusSession { return HumanNumbers.percent(session.coverage ?? .zero) }
        guard session.hasTarget else { return "-" }
        return HumanNumbers.percent(session.chance ?? .zero)
    }

    /// The mean wait for the next hit: `~29 min`, `never`; `-` without a target.
    static func wait(_ session: SessionFigures) -> String {
        guard session.hasTarget else { return "-" }
        guard let seconds = session.expectedSeconds else { return "never" }
        return "~" + duration(seconds)
    }

    /// The widest `duration` is: with its `~` it fits the WAIT column.
    static let longestDuration = 8

    /// A wait as `HumanNumbers.duration` writes it with short units: `50 ms`,
    /// `11 s`, `29 min`, `1.5 h`, `2.4 d`, `12,345 y`, `2.6e16 y`; past
    /// `longestDuration` characters, one significant digit (`4e1440 y`: the
    /// exponent stays below 10,000 within the daemon's limits).
    static func duration(_ seconds: WideNumber) -> String {
        let text = HumanNumbers.duration(seconds, .short)
        guard text.count > longestDuration else { return text }
        return HumanNumbers.duration(seconds, .short, significantDigits: 1)
    }

    /// How long the daemon has run: `42s`, `3m 12s`, `2h 03m`, `3d 04h`.
    static func uptime(_ seconds: Double) -> String {
        let total = max(0, Int(seconds))
        let (days, hours, minutes, rest) = (total / 86400, total / 3600 % 24, total / 60 % 60, total % 60)
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
        if days > 0 { return "\(days)d \(two(hours))h" }
        if hours > 0 { return "\(hours)h \(two(minutes))m" }
        if minutes > 0 { return "\(minutes)m \(two(rest))s" }
        return "\(rest)s"
    }
}
