import MonkeyCore

/// The daemon's own metric families, written before the sessions' (see
/// `Engine.fill(_:into:byteLimit:)` for those). Every figure here is
/// counted as the daemon works (an increment where it happens); a scrape
/// reads the counts, it never scans sessions or files.
enum DaemonMetrics {
    /// What the families are made of, gathered from the parts that count.
    struct Sources {
        let counters: Counters
        let store: FileStore.Counters
        let sessions: Int
        let tickLateness: DurationHistogram
        let ticksSkipped: UInt64
        let clients: Int
        let httpClients: Int
    }

    static func families(_ sources: Sources) -> [MetricFamily] {
        let counters = sources.counters
        let store = sources.store
        return [
            MetricFamily(
                "monkeyd_build_info", .gauge, help: "The daemon's version, as a label; always 1.",
                samples: [
                    MetricSample(
                        labels: [("version", Engine.version), ("protocol", String(Engine.protocolVersion))], value: 1)
                ]),
            MetricFamily(
                "monkeyd_start_time_seconds", .gauge, help: "When the daemon started, in seconds since the Unix epoch.",
                value: counters.startTime),
            MetricFamily(
                "monkeyd_sessions", .gauge, help: "Sessions the daemon keeps.", value: Double(sources.sessions)),
            MetricFamily(
                "monkeyd_clients", .gauge, help: "Clients connected to the control socket.",
                value: Double(sources.clients)),
            MetricFamily(
                "monkeyd_http_clients", .gauge, help: "Connections of the metrics listener (HTTP).",
                value: Double(sources.httpClients)),
            MetricFamily(
                "monkeyd_clients_refused_total", .counter,
                help: "Connections turned away over the limit: max_clients (control), max_metrics_clients (metrics).",
                samples: [
                    MetricSample(labels: [("listener", "control")], value: Double(counters.refusedControlClients)),
                    MetricSample(labels: [("listener", "metrics")], value: Double(counters.refusedMetricsClients)),
                ]),
            MetricFamily(
                "monkeyd_http_responses_total", .counter,
                help: "Answers of the metrics listener, by HTTP status code.", samples: counters.httpResponses.samples()
            ),
            MetricFamily(
                "monkeyd_requests_total", .counter,
                help:
                    "Requests answered on the control socket, by verb (unknown: none) and result (ok, or the error code).",
                samples: counters.requests.samples()),
            MetricFamily(
                "monkeyd_tick_lateness_seconds", .histogram,
                help: "How late each tick ran: the wake-up that typed it minus its due time.",
                samples: sources.tickLateness.samples()),
            MetricFamily(
                "monkeyd_ticks_skipped_total", .counter,
                help:
                    "Ticks never typed: those a session missed while the daemon ran more than 20 ms late "
                    + "(suspended or overloaded); its later ticks keep their phase.",
                value: Double(sources.ticksSkipped)),
            MetricFamily(
                "monkeyd_follower_entries_lost_total", .counter,
                help: "Entries not sent to a follower that did not read (reported to it as lost count=N).",
                value: Double(counters.followerEntriesLost)),
            MetricFamily(
                "monkeyd_storage_errors_total", .counter,
                help:
                    "Writes to the state directory that failed, by operation: control_log (a change or a reservation), "
                    + "entries (a sync of typed entries), snapshot (a compaction of the control log).",
                samples: [
                    MetricSample(labels: [("operation", "control_log")], value: Double(store.failedCommits)),
                    MetricSample(labels: [("operation", "entries")], value: Double(store.failedEntrySyncs)),
                    MetricSample(labels: [("operation", "snapshot")], value: Double(store.failedSnapshots)),
                ]),
            MetricFamily(
                "monkeyd_sync_duration_seconds", .histogram,
                help:
                    "How long a good write and sync took: log=control, an append of the control log (group commit); "
                    + "log=entries, a sync of typed entries on the storage thread.",
                samples: store.controlSyncs.samples(labels: [("log", "control")])
                    + store.entrySyncs.samples(labels: [("log", "entries")])),
            MetricFamily(
                "monkeyd_control_commits_total", .counter,
                help:
                    "Appends of the control log, each one write and one sync for every change of a pass (group commit).",
                value: Double(store.commits)),
            MetricFamily(
                "monkeyd_control_records_total", .counter,
                help: "Records appended to the control log: sessions changed (once per group) and reservations of ids.",
                value: Double(store.records)),
            MetricFamily(
                "monkeyd_wakeups_total", .counter,
                help: "Times the daemon's event queue woke up, by what woke it (an idle daemon wakes for nothing).",
                samples: WakeUps.Source.allCases.map {
                    MetricSample(labels: [("source", $0.rawValue)], value: Double(counters.wakeUps.count(of: $0)))
                }),
        ]
    }
}
