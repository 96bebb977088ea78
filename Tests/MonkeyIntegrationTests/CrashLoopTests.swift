import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// Everything a follower saw of one session: (id, number, text), in order.
final class FollowerRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(id: UInt64, number: UInt64, text: String)] = []
    private var isFinished = false

    func add(_ id: UInt64, _ number: UInt64, _ text: String) {
        lock.lock()
        seen.append((id, number, text))
        lock.unlock()
    }

    func finish() {
        lock.lock()
        isFinished = true
        lock.unlock()
    }

    var finished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isFinished
    }

    var entries: [(id: UInt64, number: UInt64, text: String)] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }
}

/// A TAIL read on its own thread until the daemon dies under it.
final class Follower: @unchecked Sendable {
    let record = FollowerRecord()
    private let connection: ClientConnection

    init(_ daemon: DaemonProcess, session: String) throws {
        connection = try daemon.connect()
        try connection.send(line: "TAIL \(session)")
        let thread = Thread { [self] in
            while let line = try? connection.readLine(), line.hasPrefix("entry ") {
                guard let entry = try? fields(line), let id = UInt64(entry["id"] ?? ""),
                    let number = UInt64(entry["number"] ?? "")
                else { continue }
                record.add(id, number, entry["text"] ?? "")
            }
            record.finish()
        }
        thread.start()
    }
}

/// kill -9 at random moments while sessions type at 1 ms and followers
/// watch: ids never name two texts, numbers never repeat or go back within
/// a clear-epoch, acknowledged changes survive, the daemon always restarts.
@Suite("Crash loop")
struct CrashLoopTests {
    @Test func killNineNeverReusesIDsOrNumbersNorLosesAcknowledgedChanges() throws {
        let state = TemporaryDirectory()
        let configuration = "sync_interval = 100ms\nmax_entries = 2000\n"
        let sessions = ["a", "b", "c"]
        var random = WyRand(seed: 20_261_129)
        var texts: [String: [UInt64: (number: UInt64, text: String)]] = [:]
        var clears: [String: Int] = [:]
        var monkeys: [String: Int] = [:]
        var typing: [String: Bool] = [:]
        var clearedThrough: [String: UInt64] = [:]
        var highestID: [String: UInt64] = [:]

        for round in 0..<50 {
            let daemon = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
            for session in sessions {
                if round == 0 {
                    #expect(try daemon.request("START \(session) monkeys=3 interval=1ms") == ["OK started \(session)"])
                    monkeys[session] = 3
                    typing[session] = true
                    continue
                }
                // Every acknowledged change of the last round is there.
                let status = try fields(try daemon.request("STATUS \(session)")[0])
                #expect(status["monkeys"] == String(monkeys[session] ?? 0), "round \(round) \(session)")
                #expect(status["state"] == (typing[session] == true ? "running" : "stopped"), "round \(round)")
                let logged = try daemon.request("LOG \(session)").dropLast().compactMap {
                    UInt64(try fields($0)["id"] ?? "")
                }
                #expect(
                    logged.allSatisfy { $0 > clearedThrough[session] ?? 0 }, "cleared entries came back, round \(round)"
                )
                if typing[session] != true {
                    _ = try daemon.request("START \(session)")
                    typing[session] = true
                }
            }
            let followers = try sessions.map { try Follower(daemon, session: $0) }

            let session = sessions[Int(random.next(below: UInt64(sessions.count)))]
            switch random.next(below: 4) {
            case 0:
                let count = Int(random.next(below: 6)) + 1
                #expect(try daemon.request("SET \(session) monkeys=\(count)") == ["OK updated \(session)"])
                monkeys[session] = count
            case 1:
                // Ids already typed are at most the highest any follower saw by now.
                let index = sessions.firstIndex(of: session) ?? 0
                let seenBefore = followers[index].record.entries.last?.id ?? 0
                #expect(try daemon.request("CLEAR \(session)") == ["OK cleared \(session)"])
                clears[session, default: 0] += 1
                clearedThrough[session] = max(seenBefore, highestID[session] ?? 0)
            case 2:
                #expect(try daemon.request("STOP \(session)") == ["OK stopped \(session)"])
                typing[session] = false
            default:
                break
            }
            usleep(useconds_t(10_000 + random.next(below: 240_000)))  // a random moment, not synchronisation
            kill(daemon.pid, SIGKILL)
            _ = try daemon.waitForExit()
            #expect(eventually { followers.allSatisfy { $0.record.finished } })

            for (index, follower) in followers.enumerated() {
                let name = sessions[index]
                var previous: UInt64 = 0
                for entry in follower.record.entries {
                    #expect(entry.id > previous, "a follower saw ids out of order in \(name)")
                    previous = entry.id
                    if let known = texts[name]?[entry.id] {
                        #expect(
                            known.text == entry.text && known.number == entry.number,
                            "id \(entry.id) of \(name) named \(known) and then \(entry)")
                    } else {
                        texts[name, default: [:]][entry.id] = (entry.number, entry.text)
                    }
                    highestID[name] = max(highestID[name] ?? 0, entry.id)
                }
            }
        }

        for session in sessions {
            let byID = (texts[session] ?? [:]).sorted { $0.key < $1.key }
            #expect(byID.count > 1000, "\(session) typed and was seen")
            var drops = 0
            for (earlier, later) in zip(byID, byID.dropFirst()) where later.value.number <= earlier.value.number {
                drops += 1
            }
            #expect(drops <= clears[session] ?? 0, "numbers went back only at a CLEAR in \(session)")
        }
    }
}
