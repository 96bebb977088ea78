import Testing

@testable import MonkeyDaemon

/// Which socket systemd passed is which, by name and by family, without
/// sockets.
@Suite("Passed sockets")
struct PassedSocketsTests {
    typealias Socket = PassedSockets.Socket

    static func unix(_ fd: Int32, _ name: String) -> Socket { Socket(fd: fd, name: name, isUnixDomain: true) }
    static func tcp(_ fd: Int32, _ name: String) -> Socket { Socket(fd: fd, name: name, isUnixDomain: false) }

    static let cases: [([Socket], PassedSockets)] = [
        ([], PassedSockets(control: nil, metrics: nil)),
        ([unix(3, "monkeyd.socket")], PassedSockets(control: 3, metrics: nil)),
        // Without LISTEN_FDNAMES every socket is "unknown": the first is the control socket.
        ([unix(3, "unknown"), tcp(4, "unknown")], PassedSockets(control: 3, metrics: nil)),
        // A socket unit of its own for the metrics, in either order.
        ([unix(3, "monkeyd.socket"), tcp(4, "metrics")], PassedSockets(control: 3, metrics: 4)),
        ([tcp(3, "metrics"), unix(4, "monkeyd.socket")], PassedSockets(control: 4, metrics: 3)),
        ([tcp(3, "metrics")], PassedSockets(control: nil, metrics: 3)),
        // A drop-in for monkeyd.socket names both sockets metrics.
        ([unix(3, "metrics"), tcp(4, "metrics")], PassedSockets(control: 3, metrics: 4)),
        ([tcp(3, "metrics"), unix(4, "metrics")], PassedSockets(control: 4, metrics: 3)),
    ]

    @Test(arguments: cases)
    func eachSocketHasItsRole(passed: [Socket], roles: PassedSockets) throws {
        #expect(try PassedSockets.sort(passed) == roles)
    }

    @Test(arguments: [
        [unix(3, "monkeyd.socket"), tcp(4, "metrics"), tcp(5, "metrics")],
        [unix(3, "metrics"), tcp(4, "metrics"), tcp(5, "metrics")],
        [tcp(3, "metrics"), tcp(4, "metrics")],
    ])
    func twoMetricsListenersAreRefused(passed: [Socket]) {
        #expect(throws: StartupError.self) { try PassedSockets.sort(passed) }
    }
}
