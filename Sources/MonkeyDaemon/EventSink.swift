import MonkeyCore
import MonkeyShell

/// Where the daemon's events go: the journal under systemd, stderr otherwise.
protocol EventSink: AnyObject {
    func record(_ event: Event)
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

/// Writes events to stderr in a readable form, for development runs.
final class StandardErrorSink: EventSink {
    func record(_ event: Event) {
        var fields = event.fields.map { field -> String in
            var bytes: [UInt8] = []
            ResponseEncoder.appendField(field.key, field.value, to: &bytes)
            return String(decoding: bytes.dropFirst(), as: UTF8.self)
        }
        if let peer = event.peer { fields += ["peer_uid=\(peer.uid)", "peer_pid=\(peer.pid)"] }
        let details = fields.isEmpty ? "" : " [" + fields.joined(separator: " ") + "]"
        Syscalls.printError("monkeyd: \(event.kind.rawValue): \(event.message)\(details)")
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
