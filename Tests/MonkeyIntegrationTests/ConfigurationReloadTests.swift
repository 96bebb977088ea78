import Foundation
import Glibc
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
