import Foundation

@testable import MonkeyCore
@testable import MonkeyDaemon

/// A directory of its own for a test, removed with it.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("monkeyd-daemon-test-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Keeps what a daemon in process logs, so that its lines stay out of the
/// test run's output.
final class RecordingSink: EventSink {
    private(set) var events: [Event] = []
    private(set) var messages: [String] = []

    func record(_ event: Event) { events.append(event) }
    func log(_ priority: LogPriority, _ message: String) { messages.append(message) }
}
