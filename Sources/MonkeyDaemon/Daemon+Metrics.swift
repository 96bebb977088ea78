import MonkeyCore

/// The daemon's own metric families, written before the sessions' (see
/// `Engine.fill(_:into:byteLimit:)` for those).
extension Daemon {
    func daemonMetrics() -> [MetricFamily] {
        [
            MetricFamily(
                "monkeyd_build_info", .gauge, help: "The daemon's version, as a label; always 1.",
                samples: [
                    MetricSample(
                        labels: [("version", Engine.version), ("protocol", String(Engine.protocolVersion))], value: 1)
                ]),
            MetricFamily(
                "monkeyd_start_time_seconds", .gauge, help: "When the daemon started, in seconds since the Unix epoch.",
                value: startTime),
            MetricFamily(
                "monkeyd_sessions", .gauge, help: "Sessions the daemon keeps.", value: Double(engine.sessionCount)),
            MetricFamily("monkeyd_clients", .gauge, help: "Connected clients.", value: Double(connections.count)),
            MetricFamily(
                "monkeyd_control_commits_total", .counter,
                help:
                    "Appends of the control log, each one write and one sync for every change of a pass (group commit).",
                value: Double(store.counters.commits)),
            MetricFamily(
                "monkeyd_control_records_total", .counter,
                help: "Records appended to the control log: changes and reservations of ids.",
                value: Double(store.counters.records)),
            MetricFamily(
                "monkeyd_control_commit_failures_total", .counter,
                help: "Appends of the control log the disk refused (their changes answered storage-error).",
                value: Double(store.counters.failedCommits)),
            MetricFamily(
                "monkeyd_wakeups_total", .counter,
                help: "Times the daemon's event queue woke up, by what woke it (an idle daemon wakes for nothing).",
                samples: WakeUps.Source.allCases.map {
                    MetricSample(labels: [("source", $0.rawValue)], value: Double(wakeUps.count(of: $0)))
                }),
        ]
    }
}
