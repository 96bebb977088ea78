import Foundation
import Glibc
import MonkeyShell
import Testing

@testable import MonkeyCore
@testable import MonkeyDaemon

/// The daemon in process, driven pass by pass on its queue without its
/// event sources: what a pass leaves is done at its end, and only there.
@Suite("The end of a pass")
struct EndOfPassTests {
    let directory = TemporaryDirectory()
    let daemon: Daemon
    let client: ClientConnection
    let connection: Connection

    init() throws {
        // No sync falls in a test: the daemon outlives its directory.
        let configuration = directory.path + "/monkeyd.conf"
        try "sync_interval = 24h\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let options = DaemonOptions(
            socketPath: directory.path + "/monkeyd.sock", stateDirectory: directory.path + "/state",
            configurationPath: configuration)
        daemon = try MonkeyDaemon.start(options, events: RecordingSink())
        client = try ClientConnection(path: options.socketPath)
        let daemon = self.daemon
        connection = try #require(
            daemon.queue.sync {
                daemon.acceptConnections(from: .control)
                return daemon.connections.all.first
            })
    }

    /// Lines the client has been sent so far, without waiting.
    func received() -> [String] {
        var lines: [String] = []
        var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
        while client.hasBufferedLine || poll(&poller, 1, 0) > 0, let line = try? client.readLine() {
            lines.append(line)
        }
        return lines
    }

    /// Hands lines to the connection and services it, as a readable socket
    /// would, inside `pass`.
    func handle(_ lines: String) {
        Array(lines.utf8).withUnsafeBytes { connection.receive($0) }
        daemon.service(connection)
    }

    @Test func changesAreAnsweredAtTheEndOfThePassAndNotBefore() throws {
        let daemon = self.daemon
        var heldDuringThePass = false
        var sentDuringThePass: [String] = []
        daemon.queue.sync {
            daemon.runPass {
                handle("START q interval=1h\nPING\n")
                heldDuringThePass = !daemon.commits.isEmpty
                sentDuringThePass = received()
            }
        }
        #expect(heldDuringThePass, "the START waits for the end of the pass")
        #expect(sentDuringThePass.isEmpty, "no answer goes out ahead of the change before it")
        #expect(daemon.queue.sync { daemon.commits.isEmpty })
        #expect(received() == ["OK started q", "OK pong"])
        let name = try #require(SessionName("q"))
        #expect(daemon.queue.sync { daemon.engine.session(named: name)?.isTyping } == true)
    }

    /// A change's events are recorded at the commit: an EVENTS stream
    /// opened in an earlier pass gets them in the same end of pass.
    @Test func eventsOfAChangeReachStreamsAtTheSameEnd() throws {
        let daemon = self.daemon
        let watcher = try ClientConnection(path: directory.path + "/monkeyd.sock")
        let streaming = try #require(
            daemon.queue.sync {
                daemon.acceptConnections(from: .control)
                return daemon.connections.all.first { $0 !== connection }
            })
        daemon.queue.sync {
            daemon.runPass {
                Array("EVENTS\n".utf8).withUnsafeBytes { streaming.receive($0) }
                daemon.service(streaming)
            }
            daemon.runPass { handle("START q interval=1h\n") }
        }
        #expect(received() == ["OK started q"])
        var events: [String] = []
        var poller = pollfd(fd: watcher.fd, events: Int16(POLLIN), revents: 0)
        while watcher.hasBufferedLine || poll(&poller, 1, 0) > 0, let line = try? watcher.readLine() {
            events.append(line)
        }
        #expect(
            events.map { $0.split(separator: " ").dropFirst(3).prefix(2).joined(separator: " ") } == [
                "kind=created session=q", "kind=started session=q",
            ])
    }

    /// Closing a connection takes it out of everything it followed.
    @Test func aClosedFollowerFollowsNothing() throws {
        let daemon = self.daemon
        let name = try #require(SessionName("q"))
        daemon.queue.sync { daemon.runPass { handle("START q interval=1h\nTAIL q\n") } }
        #expect(received() == ["OK started q"])
        #expect(daemon.queue.sync { daemon.engine.sessions[name]?.isFollowed } == true)
        daemon.queue.sync { daemon.close(connection) }
        #expect(daemon.queue.sync { daemon.engine.sessions[name]?.isFollowed } == false)
        #expect(daemon.queue.sync { daemon.connections.controlCount } == 0)
    }
}
