import MonkeyCore
import MonkeyShell

/// Where the daemon's events go: the journal under systemd, stderr otherwise.
protocol EventSink: AnyObject {
    func record(_ event: Event)
    /// Several events at once: those of one group commit.
    func record(contentsOf events: [Event])
    /// A problem of the daemon itself (storage, configuration), with a priority.
    func log(_ priority: LogPriority, _ message: String)
}

/// syslog priorities, as journald uses them.
enum LogPriority: Int, Sendable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
}

extension EventSink {
    func record(contentsOf events: [Event]) {
        for index in events.indices { record(events[index]) }
    }
}

/// Writes events to stderr in a readable form (`Event.appendLogLine`), for
/// development runs.
final class StandardErrorSink: EventSink {
    /// Reused for every line, so that logging allocates nothing per event.
    private let line = ByteBuffer()

    /// One event (a hit, a typed entry): no array made for it.
    func record(_ event: Event) {
        line.removeAll()
        event.appendLogLine(to: line)
        writeLine()
    }

    /// One write for all of them: a group of thousands of pipelined
    /// changes would otherwise make as many system calls.
    func record(contentsOf events: [Event]) {
        line.removeAll()
        // By index: a loop over the elements copies each event.
        for index in events.indices { events[index].appendLogLine(to: line) }
        writeLine()
    }

    private func writeLine() {
        line.withBytes { Syscalls.writeAll($0, to: Syscalls.standardError) }
    }

    func log(_ priority: LogPriority, _ message: String) {
        let label =
            switch priority {
            case .error: "error: "
            case .warning: "warning: "
            default: ""
            }
        Syscalls.printError("monkeyd: \(label)\(message)")
    }
}
