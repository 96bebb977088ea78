import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// Writes events to the journal as structured entries (sd_journal_sendv),
/// one `MESSAGE_ID` per kind so that `journalctl -x` explains them.
final class JournalSink: EventSink {
    /// journald's native socket; `sd_journal_sendv` reports success even
    /// when nothing listens there, so its presence decides the sink.
    static let socketPath = "/run/systemd/journal/socket"

    static var isReachable: Bool { Syscalls.exists(socketPath) }

    func record(_ event: Event) {
        send(JournalSink.fields(of: event))
    }

    func log(_ priority: LogPriority, _ message: String) {
        send([
            ("MESSAGE", message), ("PRIORITY", String(priority.rawValue)), ("SYSLOG_IDENTIFIER", "monkeyd"),
        ])
    }

    /// The entry for an event, in the order journalctl shows them.
    static func fields(of event: Event) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", event.message), ("MESSAGE_ID", event.kind.messageID),
            ("PRIORITY", String(event.kind.priority)), ("SYSLOG_IDENTIFIER", "monkeyd"),
            ("MONKEY_EVENT", event.kind.rawValue),
        ]
        if let session = event.session { fields.append(("MONKEY_SESSION", session.description)) }
        var own = JournalFields(fields: fields)
        event.writeFields(to: &own)
        fields = own.fields
        if let peer = event.peer {
            fields.append(("MONKEY_PEER_UID", String(peer.uid)))
            fields.append(("MONKEY_PEER_PID", String(peer.pid)))
        }
        return fields
    }

    private func send(_ fields: [(name: String, value: String)]) {
        do {
            try Systemd.sendToJournal(fields)
        } catch {
            // The journal is gone: say it where someone may still look.
            let message = fields.first { $0.name == "MESSAGE" }?.value ?? ""
            Syscalls.printError("monkeyd: \(error); \(message)")
        }
    }
}

/// An event's own fields as journal fields: `MONKEY_` and the key in
/// capitals (see `Event.journalFieldName`).
private struct JournalFields: FieldWriter {
    var fields: [(name: String, value: String)]

    mutating func write(_ key: StaticString, _ value: String) {
        fields.append((Event.journalFieldName(key.description), value))
    }

    mutating func write(_ key: StaticString, decimal value: UInt64) {
        fields.append((Event.journalFieldName(key.description), String(value)))
    }

    mutating func write(key: String, _ value: String) {
        fields.append((Event.journalFieldName(key), value))
    }
}
