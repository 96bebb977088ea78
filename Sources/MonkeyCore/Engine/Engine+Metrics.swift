/// METRICS: the sessions' part of the daemon's metrics, one family at a
/// time over every session, written as the client reads it (with
/// thousands of sessions it is megabytes).
extension Engine {
    /// The per-session families, in the order they are written. Each
    /// series carries the label `session` only (never the target text);
    /// a session whose value is nil (a plain session's coverage) has none.
    static let sessionFamilies:
        [(name: String, kind: MetricFamily.Kind, help: String, value: @Sendable (ScheduledSession) -> Double?)] = [
            (
                "monkeyd_session_entries_total", .counter,
                "Entries the session typed: its STATUS typed when the daemon started, then every entry; CLEAR keeps it.",
                { Double($0.entriesTyped) }
            ),
            (
                "monkeyd_session_characters_total", .counter, "Characters the session typed while this daemon ran.",
                { Double($0.charactersTyped) }
            ),
            (
                "monkeyd_session_hits_total", .counter,
                "Entries holding the target the session typed: its STATUS hits when the daemon started, then every hit; "
                    + "CLEAR keeps it.", { Double($0.hitsTyped) }
            ),
            (
                "monkeyd_session_best_length", .gauge, "Characters of the longest prefix of the target typed so far.",
                { Double($0.session.bestLength) }
            ),
            (
                "monkeyd_session_target_length", .gauge, "Characters of the session's target (0: none).",
                { Double($0.session.settings.target.length) }
            ),
            (
                "monkeyd_session_monkeys", .gauge, "Monkeys typing in the session: characters per entry.",
                { Double($0.session.settings.monkeys) }
            ),
            (
                "monkeyd_session_interval_seconds", .gauge, "Time between the session's entries.",
                { Double($0.session.settings.interval.nanoseconds) / 1e9 }
            ),
            (
                "monkeyd_session_typing", .gauge, "Whether the session is typing (1) or stopped (0).",
                { $0.session.isTyping ? 1 : 0 }
            ),
            (
                "monkeyd_session_hit_probability", .gauge,
                "The probability that one entry holds the target (0: none, or it can never be typed; "
                    + "below about 1e-308 it reads 0, STATUS gives it exactly).",
                { $0.odds?.probability.doubleValue ?? 0 }
            ),
            (
                "monkeyd_session_corpus_characters", .gauge,
                "Characters of a corpus session's normalised corpus (corpus sessions only).",
                { $0.corpus.map { Double($0.coverage.characterCount) } }
            ),
            (
                "monkeyd_session_covered_characters", .gauge,
                "Characters of a corpus session's corpus covered so far (corpus sessions only).",
                { $0.corpus.map { Double($0.coverage.coveredCount) } }
            ),
            (
                "monkeyd_session_windows_total", .counter,
                "Windows a corpus session typed since its coverage last started afresh (corpus sessions only).",
                { $0.corpus.map { Double($0.coverage.windows) } }
            ),
        ]

    /// The families a plain session has a series in: all but the last
    /// three, which are corpus sessions' only.
    static var plainSessionFamilyCount: Int { sessionFamilies.count - 3 }

    /// Writes the next sessions' samples until `output` holds `byteLimit`
    /// bytes; true once every family is written. Each family visits the
    /// session table slot by slot, in place: no name is sorted, hashed or
    /// copied per sample, so a slice of a large response costs little
    /// more than its bytes. Series come in slot order (Prometheus needs
    /// no order). A session deleted while a response is written is left
    /// out of the families still to come; one created meanwhile (even
    /// under the name of one deleted, in a slot not reached yet) waits for
    /// the next response, so that no series is written twice.
    ///
    /// Mutating only to read each session in place (see
    /// `SessionTable.read`); it changes no state.
    public mutating func fill(_ listing: inout MetricsListing, into output: inout [UInt8], byteLimit: Int) -> Bool {
        if listing.insertedBy == nil { listing.insertedBy = sessions.insertions }
        let insertedBy = listing.insertedBy ?? 0
        while listing.family < Self.sessionFamilies.count {
            let family = Self.sessionFamilies[listing.family]
            if !listing.hasFamilyHeader {
                Exposition.appendHeader(MetricFamily(family.name, family.kind, help: family.help), to: &output)
                listing.hasFamilyHeader = true
            }
            while listing.position < sessions.slotCount {
                if output.count >= byteLimit { return false }
                _ = sessions.read(slot: listing.position, insertedBy: insertedBy) { scheduled in
                    guard let value = family.value(scheduled) else { return }
                    Exposition.appendSessionSample(value, of: family.name, session: scheduled.session.name, to: &output)
                }
                listing.position += 1
            }
            listing.family += 1
            listing.position = 0
            listing.hasFamilyHeader = false
        }
        return true
    }
}

/// A METRICS response being written as the client reads it.
public struct MetricsListing: Sendable, Equatable {
    /// The per-session family being written, and the slot of the session
    /// table to write next of it.
    public var family = 0
    public var position = 0
    /// The `# HELP` and `# TYPE` lines of `family` are written.
    public var hasFamilyHeader = false
    /// The sessions' insertion clock at the first call (see
    /// `SessionTable.insertions`): sessions put in later are left out.
    public var insertedBy: UInt64?
    /// The daemon's own families are written (they come first).
    public var hasDaemonFamilies = false

    public init() {}
}
