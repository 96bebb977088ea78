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
        for event in events { record(event) }
    }
}

/// Writes events to stderr in a readable form, for development runs.
final class StandardErrorSink: EventSink {
    /// Reused for every line, so that logging allocates nothing per event.
    private var line: [UInt8] = []

    func record(_ event: Event) {
        line.removeAll(keepingCapacity: true)
        append(event, to: &line)
        Syscalls.writeAll(line, to: Syscalls.standardError)
    }

    /// One write for all of them: a group of thousands of pipelined
    /// changes would otherwise make as many system calls.
    func record(contentsOf events: [Event]) {
        line.removeAll(keepingCapacity: true)
        for event in events { append(event, to: &line) }
        Syscalls.writeAll(line, to: Syscalls.standardError)
    }

    /// `monkeyd: start: message [key=value ... peer_uid=0 peer_pid=1]`
    private func append(_ event: Event, to output: inout [UInt8]) {
        output.appendLiteral("monkeyd: ")
        output.appendUTF8(event.kind.rawValue)
        output.appendLiteral(": ")
        event.appendMessage(to: &output)
        if !event.fields.isEmpty || event.peer != nil {
            output.appendLiteral(" [")
            let start = output.count
            for field in event.fields { ResponseEncoder.appendField(field.key, field.value, to: &output) }
            if let peer = event.peer {
                output.appendLiteral(" peer_uid=")
                ResponseEncoder.appendDecimal(UInt64(peer.uid), to: &output)
                output.appendLiteral(" peer_pid=")
                ResponseEncoder.appendDecimal(UInt64(max(peer.pid, 0)), to: &output)
            }
            // Every field was written with its leading blank; the first needs none.
            output.remove(at: start)
            output.append(UInt8(ascii: "]"))
        }
        output.append(0x0A)
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
