import Foundation
import Glibc
import MonkeyCore
import MonkeyShell
import Testing

/// Watching many sessions (monkeyd(8), TAIL): TAIL of several sessions
/// and globs, the EVENTS stream with its cursor, and WAIT.
@Suite("Many sessions, events and waiting")
struct ManySessionsTests {
    /// Reads data lines until one satisfies `condition` (or the deadline).
    static func readUntil(_ connection: ClientConnection, timeout: Double = 10, _ condition: (String) -> Bool)
        throws -> [String]
    {
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard connection.hasBufferedLine || connection.waitReadable(timeout: deadline.timeIntervalSinceNow)
            else { break }
            guard let line = try connection.readLine() else { break }
            lines.append(line)
            if condition(line) { return lines }
        }
        throw TestFailure("no such line within \(timeout) s; read \(lines.suffix(5))")
    }

    @Test func aGlobTailPicksUpASessionCreatedLater() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START exp-1 interval=5ms")
        _ = try daemon.request("START other interval=5ms")
        let tail = try daemon.connect()
        try tail.send(line: #"TAIL "exp-*" last=1"#)
        _ = try Self.readUntil(tail) { $0.contains("session=exp-1") }
        _ = try daemon.request("START exp-2 interval=5ms")
        let lines = try Self.readUntil(tail) { $0.contains("session=exp-2") }
        #expect(!lines.contains { $0.contains("session=other") }, "the glob matches exp-* only")
        try tail.send(line: "")
        let rest = try Self.readUntil(tail) { $0 == "OK" }
        #expect(rest.allSatisfy { $0.hasPrefix("entry session=exp-") || $0 == "OK" })
    }

    /// A session created while a glob TAIL still replays (its client has
    /// not read the replay yet) joins it as well, from its first entry.
    @Test func aGlobTailStillReplayingPicksUpASessionCreatedMeanwhile() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 4K\n")
        _ = try daemon.request("START exp-big monkeys=500 interval=1ms")
        #expect(try eventually { try Int(fields(daemon.request("STATUS exp-big")[0])["entries"] ?? "0") ?? 0 >= 300 })
        _ = try daemon.request("STOP exp-big")
        let tail = try daemon.connect()
        try tail.send(line: #"TAIL "exp-*""#)
        // Not read yet: the replay of exp-big waits on a full socket.
        _ = try daemon.request("START exp-new interval=5ms")
        let lines = try Self.readUntil(tail) { $0.contains("session=exp-new") }
        let first = try #require(try lines.last.map(fields))
        #expect(first["id"] == "1", "from its first entry: \(first)")
    }

    @Test func aDeletedSessionOfSeveralIsReportedAndTheStreamGoesOn() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START a interval=5ms")
        _ = try daemon.request("START b interval=5ms")
        let tail = try daemon.connect()
        try tail.send(line: "TAIL a b last=0")
        _ = try Self.readUntil(tail) { $0.contains("session=b") }
        #expect(try daemon.request("DELETE a") == ["OK deleted a"])
        _ = try Self.readUntil(tail) { $0 == "deleted session=a" }
        let after = try Self.readUntil(tail) { $0.contains("session=b") }
        #expect(!after.contains { $0.contains("session=a ") })
        // Named without a glob, a re-created a is not followed again.
        _ = try daemon.request("START a interval=5ms")
        var seen: [String] = []
        for _ in 0..<20 { seen += try Self.readUntil(tail) { $0.contains("session=b") } }
        #expect(!seen.contains { $0.contains("session=a ") }, "\(seen.filter { $0.contains("session=a") })")
        // A TAIL of one session still ends with an error when it is deleted.
        let single = try daemon.connect()
        try single.send(line: "TAIL b last=0")
        _ = try Self.readUntil(single) { $0.contains("session=b") }
        _ = try daemon.request("DELETE b")
        _ = try Self.readUntil(single) { $0.hasPrefix("ERR no-such-session") }
    }

    @Test(arguments: [
        ("TAIL a b after=3", "ERR bad-request"), (#"TAIL "a*" after=3"#, "ERR bad-request"),
        ("TAIL a missing", "ERR no-such-session"), (#"TAIL "[a" last=1"#, "ERR bad-argument"),
        ("LOG a missing", "ERR no-such-session"), ("WAIT a", "ERR bad-request"),
        ("WAIT a for=best", "ERR bad-argument"), ("WAIT a for=hit timeout=soon", "ERR bad-argument"),
        ("WAIT missing for=hit", "ERR no-such-session"), ("EVENTS after=x", "ERR bad-argument"),
        (#"EVENTS session="[""#, "ERR bad-argument"),
    ])
    func badRequestsAreRefused(line: String, answer: String) throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START a interval=1h")
        #expect(try daemon.request(line).last?.hasPrefix(answer) == true, "\(line)")
    }

    /// LOG of several sessions: each one's entries in name order, then OK.
    @Test func logOfSeveralSessionsWritesEachInTurn() throws {
        let daemon = try DaemonProcess()
        for name in ["b", "a", "c"] { _ = try daemon.request("START \(name) interval=1ms") }
        #expect(try eventually { try daemon.request(#"LOG "*" last=3"#).count == 10 })
        let lines = try daemon.request(#"LOG c "[ab]" last=3"#)
        #expect(lines.last == "OK")
        let sessions = try lines.dropLast().map { try fields($0)["session"] ?? "" }
        #expect(sessions == ["a", "a", "a", "b", "b", "b", "c", "c", "c"])
    }

    // MARK: EVENTS

    @Test func everyKindOfEventIsStreamedWithIncreasingIds() throws {
        let daemon = try DaemonProcess()
        let stream = try daemon.connect()
        try stream.send(line: "EVENTS")
        _ = try daemon.request("START s alphabet=ab target=ab monkeys=4 interval=2ms")
        let first = try Self.readUntil(stream) { $0.contains("kind=hit") }
        _ = try daemon.request("SET s monkeys=5")
        _ = try daemon.request("STOP s")
        _ = try daemon.request("CLEAR s")
        _ = try daemon.request("DELETE s")
        let lines = try first + Self.readUntil(stream) { $0.contains("kind=deleted") }
        let events = try lines.map(fields)
        let kinds = events.compactMap { $0["kind"] }
        for kind in ["created", "started", "best", "hit", "updated", "stopped", "cleared", "deleted"] {
            #expect(kinds.contains(kind), "\(kind) in \(kinds)")
        }
        #expect(kinds.first == "created" && kinds.dropFirst().first == "started")
        let ids = events.compactMap { UInt64($0["id"] ?? "") }
        #expect(ids == Array(ids[0]...(ids.last ?? 0)), "ids increase by one")
        #expect(events.allSatisfy { $0["session"] == "s" && $0["time"]?.hasSuffix("Z") == true })
        let hit = try #require(events.first { $0["kind"] == "hit" })
        #expect(hit["text"]?.contains("ab") == true && hit["entry_id"] != nil && hit["number"] != nil)
        try stream.send(line: "")
        #expect(try Self.readUntil(stream) { $0 == "OK" }.last == "OK")
    }

    /// Event ids go on past kill -9 (a gap marks what may have been lost),
    /// and `after=` replays what is kept; past `max_events`, a cursor older
    /// than what is kept starts with `lost count=N`.
    @Test func eventIdsContinuePastACrashAndOldCursorsAreToldWhatTheyLost() throws {
        let state = TemporaryDirectory()
        let configuration = "sync_interval = 20ms\nmax_events = 8\n"
        let first = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        for index in 0..<5 { _ = try first.request("START s\(index) interval=1h") }
        let before = try first.request("EVENTS after=0\n")
        let lastBefore = try before.dropLast().compactMap { UInt64(try fields($0)["id"] ?? "") }.max() ?? 0
        #expect(lastBefore == 10)
        // Synced to disk within sync_interval.
        #expect(eventually { (EntriesJournalTests.size(state.path + "/sessions/events") ?? 0) > 100 })
        try first.stop(signal: SIGKILL)

        let second = try DaemonProcess(configuration: configuration, stateDirectory: state.path)
        let replay = try second.request("EVENTS after=0\n")
        let records = try replay.dropLast().map(fields)
        #expect(records.first?["type"] == "lost", "\(replay)")
        let ids = records.compactMap { UInt64($0["id"] ?? "") }
        #expect(ids.count == 8, "the newest max_events are kept")
        let restored = records.filter { $0["kind"] == "restored" }
        #expect(restored.count == 5)
        #expect(restored.allSatisfy { (UInt64($0["id"] ?? "") ?? 0) > lastBefore }, "ids are never given twice")
        #expect(ids == ids.sorted())
        let lost = try #require(UInt64(records.first?["count"] ?? ""))
        #expect(lost == (ids.first ?? 0) - 1)
        // monkeyctl says what was lost in words that fit events.
        let printed = try MonkeyctlClient(second).run("events", "--after", "0")
        #expect(printed.lines.first == "... \(lost) events lost (no longer kept, or reader too slow)", "\(printed)")
    }

    /// An events reader that stops reading is bounded like a follower: the
    /// daemon serves others, and the reader is told exactly how many events
    /// it missed, the ids on either side of the gap agreeing.
    @Test func aStalledEventsReaderLosesEventsNotTheDaemon() throws {
        let daemon = try DaemonProcess(configuration: "max_pending_output = 64K\n")
        let control = try daemon.connect()
        let stalled = try daemon.connect()
        try stalled.send(line: "EVENTS")
        for index in 0..<5 { _ = try control.request("START h\(index) alphabet=a target=a interval=1ms") }
        let before = daemon.residentKilobytes()
        for _ in 0..<100 {
            #expect(try control.request("PING") == ["OK pong"])
            usleep(10000)  // pacing the load, not synchronisation
        }
        let growth = daemon.residentKilobytes() - before
        #expect(Binaries.isAddressSanitized || growth < 16 * 1024, "memory stays bounded (grew \(growth) KiB)")
        var lastID: UInt64 = 0
        var gapChecked = false
        while !gapChecked, let line = try stalled.readLine() {
            let record = try fields(line)
            if record["type"] == "lost" {
                let lost = try #require(UInt64(record["count"] ?? ""))
                let next = try #require(try stalled.readLine().map(fields))
                #expect(UInt64(next["id"] ?? "") == lastID + lost + 1, "\(next) after \(lastID) and \(lost) lost")
                gapChecked = true
            } else {
                let id = try #require(UInt64(record["id"] ?? ""))
                #expect(lastID == 0 || id == lastID + 1, "ids follow each other until a gap is reported")
                lastID = id
            }
        }
        #expect(gapChecked)
    }

    @Test func anEventsStreamFiltersBySessionAndResumesAfterACursor() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START exp-a interval=1h")
        _ = try daemon.request("START other interval=1h")
        _ = try daemon.request("STOP exp-a")
        let all = try daemon.request("EVENTS after=0\n").dropLast().map(fields)
        let filtered = try daemon.request(#"EVENTS after=0 session="exp-*""# + "\n").dropLast().map(fields)
        #expect(filtered.map { $0["session"] } == all.filter { $0["session"] == "exp-a" }.map { $0["session"] })
        let cursor = try #require(all.dropLast().last?["id"])
        let resumed = try daemon.request("EVENTS after=\(cursor)\n").dropLast().map(fields)
        #expect(resumed.map { $0["id"] } == [all.last?["id"]])
    }

    // MARK: WAIT

    @Test func waitForAHitAnswersWithTheHit() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s alphabet=ab target=a interval=1ms")
        let answer = try daemon.request("WAIT s for=hit timeout=10s")
        #expect(answer.count == 2 && answer.last == "OK", "\(answer)")
        let event = try fields(answer[0])
        #expect(event["type"] == "event" && event["kind"] == "hit" && event["text"]?.contains("a") == true)
    }

    /// A client that hangs up while it waits is gone: its connection is
    /// closed, and the daemon does not wake up for it again.
    @Test func aWaiterThatHangsUpIsClosed() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s target=monkey monkeys=1 interval=1h")
        func clients() throws -> Int? {
            let line = try daemon.request("METRICS").first { $0.hasPrefix("monkeyd_clients ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        var waiter: ClientConnection? = try daemon.connect()
        try waiter?.send(line: "WAIT s for=hit")
        #expect(try eventually { try clients() == 2 }, "the waiter and the METRICS request")
        waiter = nil  // closes it
        #expect(try eventually { try clients() == 1 }, "only the METRICS request")
        let before = try daemon.wakeUps()["connections"] ?? 0
        usleep(300_000)  // a window in which a spinning loop would wake up many times
        let after = try daemon.wakeUps()["connections"] ?? 0
        #expect(after - before <= 4, "woke \(after - before) times for connections")
    }

    @Test func waitOnAHopelessSessionTimesOut() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s target=monkey monkeys=1 interval=1ms")
        let answer = try daemon.request("WAIT s for=hit timeout=50ms")
        #expect(answer.count == 1 && answer[0].hasPrefix("ERR timed-out "), "\(answer)")
        #expect(try daemon.request("PING") == ["OK pong"])
    }

    @Test func stoppedAndBestAreMetAtOnceWhenTheyHoldAlready() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s alphabet=ab target=ab monkeys=8 interval=1ms")
        let best = try daemon.request("WAIT s for=best=2")
        #expect(best.last == "OK")
        _ = try daemon.request("STOP s")
        let stopped = try daemon.request("WAIT s for=stopped")
        #expect(stopped.count == 2)
        #expect(try fields(stopped[0])["state"] == "stopped")
        #expect(try daemon.request("WAIT s for=best=2").first?.hasPrefix("session name=s") == true)
    }

    @Test func waitForStoppedEndsWithTheStopAndADeletionEndsEveryWait() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s interval=1h")
        let stop = try daemon.connect()
        try stop.send(line: "WAIT s for=stopped")
        let many = try (0..<100).map { _ in try daemon.connect() }
        for connection in many { try connection.send(line: "WAIT s for=hit") }
        _ = try daemon.request("STOP s")
        let answer = try stop.readResponse()
        #expect(answer.count == 2)
        #expect(try fields(answer[0])["kind"] == "stopped")
        _ = try daemon.request("DELETE s")
        for connection in many { #expect(try connection.readResponse().last?.hasPrefix("ERR no-such-session") == true) }
    }

    // MARK: monkeyctl

    @Test func monkeyctlWaitExitsZeroFiveOrOne() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        _ = try daemon.request("START quick alphabet=ab target=a interval=1ms")
        _ = try daemon.request("START never target=monkey monkeys=1 interval=1ms")
        let hit = try monkeyctl.run("wait", "quick", "--hit", "--timeout", "10s")
        #expect(hit.status == 0 && hit.lines.first?.contains(" hit ") == true, "\(hit)")
        let timedOut = try monkeyctl.run("wait", "never", "--hit", "--timeout", "50ms")
        #expect(timedOut.status == 5 && timedOut.error.contains("timed-out"), "\(timedOut)")
        let missing = try monkeyctl.run("wait", "missing", "--stopped")
        #expect(missing.status == 1, "\(missing)")
        let usage = try monkeyctl.run("wait", "quick", "--hit", "--stopped")
        #expect(usage.status == 2, "\(usage)")
        // With --json, the session's record and nothing else.
        _ = try daemon.request("STOP quick")
        let json = try monkeyctl.run("--json", "wait", "quick", "--stopped")
        #expect(json.status == 0 && json.lines.count == 1, "\(json)")
        #expect(json.lines.first?.hasPrefix(#"{"type":"session","name":"quick","state":"stopped""#) == true)
    }

    @Test func monkeyctlTailOfSeveralSessionsPrefixesTheirNames() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        _ = try daemon.request("START demo interval=1ms")
        _ = try daemon.request("START longer-name interval=1ms")
        #expect(try eventually { try daemon.request(#"LOG "*" last=2"#).count == 5 })
        let tail = try monkeyctl.run("tail", "demo", "longer-name", "-n", "2")
        #expect(tail.status == 0)
        #expect(tail.lines.count == 4)
        #expect(tail.lines.prefix(2).allSatisfy { $0.hasPrefix("demo        ") }, "\(tail.lines)")
        #expect(tail.lines.suffix(2).allSatisfy { $0.hasPrefix("longer-name ") }, "\(tail.lines)")
        let all = try monkeyctl.run("tail", "--all", "-n", "1", "--json")
        #expect(all.lines.count == 2 && all.lines.allSatisfy { $0.contains(#""session":"#) })
    }

    @Test func monkeyctlEventsPrintsIdsAndResumes() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        _ = try daemon.request("START s interval=1h")
        let events = try monkeyctl.run("events")
        #expect(events.status == 0)
        #expect(events.lines.count == 2 && events.lines[0].hasPrefix("#1 ") && events.lines[0].hasSuffix(" s created"))
        let json = try monkeyctl.run("events", "--after", "1", "--json")
        #expect(
            json.lines.count == 1 && json.lines[0].contains(#""id":2"#) && json.lines[0].contains(#""kind":"started""#))
    }

    // MARK: Hostile input

    @Test func aTailOfTenThousandNamesOrALongGlobIsRefusedClearly() throws {
        let daemon = try DaemonProcess(configuration: "max_line_length = 1048576\n")
        let names = (0..<10_000).map { "n\($0)" }.joined(separator: " ")
        #expect(try daemon.request("TAIL \(names)").last?.hasPrefix("ERR no-such-session") == true)
        let glob = String(repeating: "*a", count: 2_000)
        let connection = try daemon.connect()
        try connection.send(line: "TAIL \"\(glob)\" last=0")
        _ = try daemon.request("START aaaa interval=1ms")
        #expect(try daemon.request("PING") == ["OK pong"])
        try connection.send(line: "")
        #expect(try connection.readResponse().last == "OK")
        #expect(
            try daemon.request("TAIL \"" + String(repeating: "[", count: 4_000) + "\"").last?.hasPrefix(
                "ERR bad-argument") == true)
        #expect(daemon.residentKilobytes() < 200_000)
        let small = try DaemonProcess()
        #expect(try small.request("TAIL \(names)").last?.hasPrefix("ERR line-too-long") == true)
    }
}
