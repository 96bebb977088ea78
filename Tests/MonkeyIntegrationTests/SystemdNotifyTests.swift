import Foundation
import Glibc
import MonkeyShell
import Testing

/// sd_notify as systemd hears it: datagrams on a NOTIFY_SOCKET owned by the test.
@Suite("systemd notifications")
struct SystemdNotifyTests {
    @Test func statusFollowsTheSessionsAndIsSentOnlyWhenItChanges() throws {
        let daemon = try DaemonProcess()
        #expect(daemon.notify.waitFor("STATUS=") == "STATUS=0 sessions, 0 typing, 0 entries typed, 0 hits")
        _ = try daemon.request("START busy interval=1ms")
        var previous = try #require(daemon.notify.waitFor("STATUS=1 sessions, 1 typing"))
        for _ in 0..<2 {
            let next = try #require(daemon.notify.waitFor("STATUS="))
            #expect(next != previous, "a STATUS is only sent when the summary changed")
            #expect(next.hasPrefix("STATUS=1 sessions, 1 typing, "))
            previous = next
        }
        _ = try daemon.request("STOP busy")
        let stopped = try #require(daemon.notify.waitFor("STATUS=1 sessions, 0 typing"))
        // Read-only requests and a reload change nothing: the next STATUS is the new session's.
        _ = try daemon.request("STATUS")
        kill(daemon.pid, SIGHUP)
        _ = try #require(daemon.notify.waitFor("RELOADING=1"))
        _ = try #require(daemon.notify.waitFor("READY=1"))
        _ = try daemon.request("START idle interval=1h")
        let totals = stopped.dropFirst("STATUS=1 sessions, 0 typing".count)
        #expect(daemon.notify.waitFor("STATUS=") == "STATUS=2 sessions, 1 typing\(totals)")
    }

    /// Run by hand, with no manager to hear it (no NOTIFY_SOCKET), the
    /// daemon works out no status line: no status timer wakes it while its
    /// sessions type. With one, the same typing sends a status about once a second.
    @Test func withoutAManagerNoStatusIsWorkedOut() throws {
        for manager in [false, true] {
            let daemon = try DaemonProcess(manager: manager)
            _ = try daemon.request("START a interval=10ms")
            // Past a second of typing, when a status would be due.
            #expect(try eventually { try BufferedEntriesTests.typed(daemon, "a") > 150 })
            let statusWakeUps = try daemon.wakeUps()["status_timer"] ?? 0
            if manager {
                #expect(statusWakeUps > 0, "with a manager, the status follows the typing")
            } else {
                #expect(statusWakeUps == 0, "with no manager, no status timer is armed")
            }
        }
    }

    @Test func watchdogIsPettedAtHalfItsInterval() throws {
        let daemon = try DaemonProcess(environment: ["WATCHDOG_USEC": "100000"])
        for _ in 0..<5 { #expect(daemon.notify.waitFor("WATCHDOG=1") != nil) }
    }

    /// Requests that never stop coming must not hold up the rest of the
    /// daemon's work: the loop that reads them gives the queue back every
    /// few tens of milliseconds, and the watchdog is still petted.
    @Test func watchdogIsPettedWhileClientsKeepTheSocketBusy() throws {
        let daemon = try DaemonProcess(environment: ["WATCHDOG_USEC": "200000"])
        _ = try #require(daemon.notify.waitFor("WATCHDOG=1"))
        let client = try PingingClient(daemon)
        defer { client.stop() }
        #expect(eventually { client.answered > 20_000 })
        while daemon.notify.receive(timeout: 0) != nil {}
        for _ in 0..<5 { #expect(daemon.notify.waitFor("WATCHDOG=1", timeout: 2) != nil) }
        #expect(client.failure == nil)
    }

    @Test func watchdogMeantForAnotherProcessIsIgnored() throws {
        let daemon = try DaemonProcess(environment: ["WATCHDOG_USEC": "20000", "WATCHDOG_PID": "1"])
        _ = try daemon.request("START busy interval=1ms")
        // Two status updates are at least a second apart: fifty pings had they been meant for us.
        var messages: [String] = []
        for _ in 0..<3 { messages.append(try #require(daemon.notify.waitFor("STATUS="))) }
        #expect(!messages.contains { $0.contains("WATCHDOG") })
        while let more = daemon.notify.receive(timeout: 0) { #expect(!more.contains("WATCHDOG")) }
    }

    @Test func reloadIsAnnouncedWithTheMonotonicClock() throws {
        let daemon = try DaemonProcess()
        let before = Syscalls.monotonicNanoseconds() / 1000
        kill(daemon.pid, SIGHUP)
        let reloading = try #require(daemon.notify.waitFor("RELOADING=1"))
        let after = Syscalls.monotonicNanoseconds() / 1000
        let assignments = reloading.split(separator: "\n")
        let stamp = try #require(assignments.first { $0.hasPrefix("MONOTONIC_USEC=") })
        let microseconds = try #require(UInt64(stamp.dropFirst("MONOTONIC_USEC=".count)))
        #expect((before...after).contains(microseconds))
        #expect(daemon.notify.waitFor("READY=1") != nil)
        #expect(try daemon.request("PING") == ["OK pong"])
    }

    @Test func stoppingIsAnnouncedOnSIGTERM() throws {
        let daemon = try DaemonProcess()
        kill(daemon.pid, SIGTERM)
        #expect(daemon.notify.waitFor("STOPPING=1") != nil)
        #expect(try daemon.waitForExit() == 0)
    }
}

/// Keeps the daemon's socket busy: one thread writes PINGs as fast as the
/// socket takes them, so that requests always wait to be read, and another
/// counts the answers, reading them in bulk so that they never back up.
final class PingingClient: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var error: String?
    private var isStopped = false
    private let connection: ClientConnection

    init(_ daemon: DaemonProcess) throws {
        connection = try daemon.connect()
        let batch = [UInt8](String(repeating: "PING\n", count: 10_000).utf8)
        Thread { [self] in
            do {
                while !stopped { try connection.send(batch) }
            } catch {
                lock.withLock { self.error = "\(error)" }
            }
        }.start()
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !stopped {
                let length = buffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
                guard length > 0 else { break }
                let answers = buffer[..<length].lazy.filter { $0 == 0x0A }.count
                lock.withLock { count += answers }
            }
        }.start()
    }

    var answered: Int { lock.withLock { count } }
    var failure: String? { lock.withLock { error } }
    private var stopped: Bool { lock.withLock { isStopped } }
    func stop() { lock.withLock { isStopped = true } }
}
