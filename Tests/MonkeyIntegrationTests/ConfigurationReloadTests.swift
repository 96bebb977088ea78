import Foundation
import Glibc
import MonkeyCore
import Testing

/// monkeyd.conf at start-up and on SIGHUP: bad files are refused with the
/// line that is wrong; a bad reload keeps the configuration that works.
@Suite("Configuration and reload")
struct ConfigurationReloadTests {
    @Test func startUpRefusesABadConfigurationNamingTheLine() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/monkeyd.conf"
        try "# limits\nmax_sessions = 2\nmax_monkies = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (status, message) = try runToExit([
            "--socket", directory.path + "/monkeyd.sock", "--state-dir", directory.path + "/state", "--config", path,
        ])
        #expect(status == 1)
        #expect(message.contains("\(path): line 3: unknown key 'max_monkies'"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/monkeyd.sock"))
    }

    @Test func reloadAppliesAGoodFileAndKeepsTheOldOneOnError() throws {
        let daemon = try DaemonProcess(configuration: "max_sessions = 1\n")
        let path = daemon.directory.path + "/monkeyd.conf"
        #expect(try daemon.request("START a interval=1h") == ["OK started a"])
        #expect(try daemon.request("START b interval=1h").first?.hasPrefix("ERR too-many-sessions") == true)

        try "max_sessions = 3\nlog_typed = perhaps\n".write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        _ = try #require(daemon.notify.waitFor("RELOADING=1"))
        _ = try #require(daemon.notify.waitFor("READY=1"))
        #expect(try daemon.request("START b interval=1h").first?.hasPrefix("ERR too-many-sessions") == true)
        #expect(eventually { daemon.standardError.contains("kept the old configuration: \(path): line 2: log_typed") })

        try "max_sessions = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        _ = try #require(daemon.notify.waitFor("RELOADING=1"))
        _ = try #require(daemon.notify.waitFor("READY=1"))
        #expect(try daemon.request("START b interval=1h") == ["OK started b"])
        #expect(eventually { daemon.standardError.contains("reloaded the configuration from \(path)") })
    }

    /// A reload applies `max_events` at once: the oldest events go.
    @Test func reloadAppliesMaxEventsAtOnce() throws {
        let daemon = try DaemonProcess(configuration: "max_events = 100\n")
        for index in 0..<10 { _ = try daemon.request("START s\(index) interval=1h") }
        #expect(try daemon.request("EVENTS after=0\n").count == 21, "20 events and OK")
        try "max_events = 4\n".write(
            toFile: daemon.directory.path + "/monkeyd.conf", atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        _ = try #require(daemon.notify.waitFor("READY=1"))
        let kept = try daemon.request("EVENTS after=0\n").dropLast().map(fields)
        #expect(kept.first?["type"] == "lost" && kept.first?["count"] == "16", "\(kept)")
        #expect(kept.dropFirst().compactMap { $0["id"] } == ["17", "18", "19", "20"])
    }

    /// The events of restored sessions reach the disk like typed entries,
    /// within sync_interval, with nothing else going on.
    @Test func restoredEventsAreSyncedWithoutOtherActivity() throws {
        let state = TemporaryDirectory()
        let configuration = "sync_interval = 20ms\n"
        let first = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        _ = try first.request("START s interval=1h")
        try first.stop()
        let second = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let restored = try #require(try second.request("EVENTS after=0\n").dropLast().map(fields).last)
        #expect(restored["kind"] == "restored")
        let events = state.path + "/sessions/events"
        func onDisk() -> [EventRecord] {
            EventFile.decode(Array((try? Data(contentsOf: URL(fileURLWithPath: events))) ?? Data())).events
        }
        #expect(eventually { onDisk().contains { $0.kind == .restored } }, "synced within sync_interval")
        try second.stop(signal: SIGKILL)
        let third = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let ids = try third.request("EVENTS after=0\n").dropLast().map(fields).filter { $0["kind"] == "restored" }
        #expect(ids.first?["id"] == restored["id"], "the first restored event survived the crash")
    }

    @Test func typedEntriesAreLoggedOnlyWhenConfigured() throws {
        let daemon = try DaemonProcess(configuration: "log_typed = yes\n")
        _ = try daemon.request("START words monkeys=3 interval=5ms")
        #expect(eventually { daemon.standardError.contains("monkeyd: typed: words: 3. ") })
        let quiet = try DaemonProcess()
        _ = try quiet.request("START words monkeys=3 interval=1ms")
        _ = try #require(quiet.notify.waitFor("STATUS=1 sessions, 1 typing"))
        #expect(!quiet.standardError.contains("typed:"))
    }
}
