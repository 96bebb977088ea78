import Foundation
import Glibc
import MonkeyShell

/// A blocking TCP client for the metrics listener: sends bytes as they
/// are, reads the answer to the end of the connection, with a deadline.
final class HTTPClient {
    let fd: Int32

    /// Connects to `host` (an IPv4 or IPv6 literal) and `port`, with a
    /// receive buffer of `receiveBuffer` bytes if given (a slow reader).
    init(host: String = "127.0.0.1", port: UInt16, receiveBuffer: Int32? = nil) throws {
        let isIPv6 = host.contains(":")
        fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        if var size = receiveBuffer {
            // Before connecting, so that the window it advertises is small from the start.
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        // Not closed here: with `fd` set, a throw runs `deinit`, which closes
        // it; closed twice, the second close could hit another test's descriptor.
        guard result == 0 else { throw SystemError("connect") }
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) throws {
        try Syscalls.sendAll(fd, bytes)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Everything until the daemon closes the connection; throws if that
    /// takes longer than `timeout`.
    func readToEnd(timeout: Double = 10) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TestFailure("no end of the answer within \(timeout) s") }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(remaining * 1000) + 1) == 1 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                bytes += chunk[0..<count]
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw SystemError("recv")
            }
        }
    }

    /// Waits until the daemon has sent something or closed, up to `timeout`.
    func waitReadable(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(timeout * 1000)) == 1
    }

    /// One request on a fresh connection, its answer parsed.
    static func get(_ path: String = "/metrics", port: UInt16, host: String = "127.0.0.1") throws -> HTTPAnswer {
        let client = try HTTPClient(host: host, port: port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        return try HTTPAnswer(client.readToEnd())
    }
}

/// An HTTP answer as the daemon wrote it: status, header fields, and the
/// body, de-chunked when it was chunked.
struct HTTPAnswer {
    let status: Int
    let fields: [(name: String, value: String)]
    let body: String
    /// A chunked body ended with its last chunk (it was not cut short).
    let isComplete: Bool

    init(_ bytes: [UInt8]) throws {
        let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        guard let end = bytes.firstRange(of: separator) else {
            throw TestFailure("no end of head in \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw TestFailure("bad status line \(head[0])")
        }
        self.status = status
        fields = head.dropFirst().map { line in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        var rest = Array(bytes[end.upperBound...])
        guard fields.contains(where: { $0.name == "Transfer-Encoding" && $0.value == "chunked" }) else {
            body = String(decoding: rest, as: UTF8.self)
            isComplete = true
            return
        }
        var decoded: [UInt8] = []
        var complete = false
        while let lineEnd = rest.firstRange(of: [0x0D, 0x0A]) {
            guard let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else {
                throw TestFailure("bad chunk size")
            }
            if size == 0 {
                complete = Array(rest[lineEnd.upperBound...]) == [0x0D, 0x0A]
                break
            }
            let start = lineEnd.upperBound
            guard rest.count >= start + size + 2 else { break }
            decoded += rest[start..<(start + size)]
            rest = Array(rest[(start + size + 2)...])
        }
        body = String(decoding: decoded, as: UTF8.self)
        isComplete = complete
    }

    func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body's lines.
    var lines: [String] { body.split(separator: "\n").map(String.init) }
}

extension DaemonProcess {
    /// The port of the metrics listener, from the start-up log line
    /// (`metrics on http://127.0.0.1:PORT/metrics`).
    func metricsPort() throws -> UInt16 {
        let log = startupLog
        guard let range = log.range(of: "metrics on http://") else { throw TestFailure("no metrics listener: \(log)") }
        let rest = log[range.upperBound...]
        guard let slash = rest.firstIndex(of: "/"), let colon = rest[..<slash].lastIndex(of: ":"),
            let port = UInt16(rest[rest.index(after: colon)..<slash])
        else { throw TestFailure("no port in \(rest.prefix(80))") }
        return port
    }
}

/// A TCP port nobody listens on now (bound to port 0, then released).
func freeTCPPort() throws -> UInt16 {
    let fd = try Syscalls.tcpListener(.ipv4, address: [127, 0, 0, 1], port: 0, backlog: 1)
    defer { Glibc.close(fd) }
    guard let local = Syscalls.localTCPAddress(fd) else { throw TestFailure("getsockname") }
    return local.port
}
