internal import CSystemd
import Glibc
import MonkeyShell

/// What the daemon tells systemd (sd_notify(3)).
public enum NotifyState: Sendable, Equatable {
    case ready
    case reloading(monotonicMicroseconds: UInt64)
    case stopping
    case watchdog
    case status(String)

    var assignments: String {
        switch self {
        case .ready: "READY=1"
        case .reloading(let microseconds): "RELOADING=1\nMONOTONIC_USEC=\(microseconds)"
        case .stopping: "STOPPING=1"
        case .watchdog: "WATCHDOG=1"
        case .status(let text): "STATUS=\(text.replacingNewlines())"
        }
    }
}

/// The daemon's words for libsystemd: every call's return value is checked.
public enum Systemd {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let call: String
        public let errno: Int32
        public var description: String { "\(call): \(SystemError.sentence(errno))" }
    }

    /// Sends states to the service manager; false when no manager listens
    /// (`NOTIFY_SOCKET` unset), which is normal outside systemd.
    @discardableResult
    public static func notify(_ states: NotifyState...) throws(Failure) -> Bool {
        let message = states.map(\.assignments).joined(separator: "\n")
        let result = sd_notify(0, message)
        if result < 0 { throw Failure(call: "sd_notify", errno: -result) }
        return result > 0
    }

    /// A socket passed by socket activation, with its name: the socket
    /// unit's `FileDescriptorName=`, else the unit's name, or `unknown`
    /// when the manager passed no names (`LISTEN_FDNAMES` unset).
    public struct PassedDescriptor: Sendable, Equatable {
        public let fd: Int32
        public let name: String
    }

    /// The listening sockets passed by socket activation, with their names
    /// (sd_listen_fds_with_names(3)), starting at fd 3; empty when not
    /// socket-activated. The names array is libsystemd's, freed here with
    /// free(3) as its manual says.
    public static func listenDescriptors() throws(Failure) -> [PassedDescriptor] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        if count < 0 { throw Failure(call: "sd_listen_fds_with_names", errno: -count) }
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        return (0..<count).map { index in
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return PassedDescriptor(fd: SD_LISTEN_FDS_START + index, name: name)
        }
    }

    /// True if `fd` is a listening stream socket of any family (sd_is_socket(3)).
    public static func isListeningStreamSocket(_ fd: Int32) throws(Failure) -> Bool {
        let result = sd_is_socket(fd, AF_UNSPEC, Int32(SOCK_STREAM.rawValue), 1)
        if result < 0 { throw Failure(call: "sd_is_socket", errno: -result) }
        return result > 0
    }

    /// True if `fd` is a Unix-domain socket of any type, listening or not (sd_is_socket(3)).
    public static func isUnixSocket(_ fd: Int32) throws(Failure) -> Bool {
        let result = sd_is_socket(fd, AF_UNIX, 0, -1)
        if result < 0 { throw Failure(call: "sd_is_socket", errno: -result) }
        return result > 0
    }

    /// True if `fd` is a listening Unix stream socket (sd_is_socket_unix(3)).
    public static func isListeningUnixSocket(_ fd: Int32) throws(Failure) -> Bool {
        let result = sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0)
        if result < 0 { throw Failure(call: "sd_is_socket_unix", errno: -result) }
        return result > 0
    }

    /// The watchdog interval in microseconds if systemd expects pings from
    /// this process (sd_watchdog_enabled(3), which honours WATCHDOG_PID).
    public static func watchdogMicroseconds() throws(Failure) -> UInt64? {
        var microseconds: UInt64 = 0
        let result = sd_watchdog_enabled(0, &microseconds)
        if result < 0 { throw Failure(call: "sd_watchdog_enabled", errno: -result) }
        return result > 0 ? microseconds : nil
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

extension Systemd {
    /// Sends one structured entry to the journal (sd_journal_sendv(3)): each
    /// field is `NAME=value`; values may hold any bytes, newlines included.
    /// sd_journal_send is variadic, which Swift cannot call, hence the iovecs.
    public static func sendToJournal(_ fields: [(name: String, value: String)]) throws(Failure) {
        // One buffer for all fields keeps every iovec pointer valid for the call.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = bytes.count
            bytes += field.name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += field.value.utf8
            ranges.append(start..<bytes.count)
        }
        let result = bytes.withUnsafeMutableBytes { buffer in
            var vectors = ranges.map { range in
                iovec(iov_base: buffer.baseAddress.map { $0 + range.lowerBound }, iov_len: range.count)
            }
            return sd_journal_sendv(&vectors, Int32(vectors.count))
        }
        if result < 0 { throw Failure(call: "sd_journal_sendv", errno: -result) }
    }
}
