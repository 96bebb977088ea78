import Foundation
import Testing

/// Every verb of monkeyd(8) (Verbs) against the real daemon.
@Suite("Protocol verbs")
struct ProtocolVerbTests {
    @Test func pingHelloHelpQuit() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        #expect(try connection.request("PING") == ["OK pong"])
        #expect(try connection.request("ping") == ["OK pong"])
        #expect(try connection.request("HELLO") == ["OK monkeyd version=0.1.0 protocol=1"])
        let help = try connection.request("HELP")
        #expect(help.last == "OK")
        let verbs = try help.dropLast().map { try fields($0)["name"] ?? "" }
        #expect(
            verbs == [
                "PING", "HELLO", "START", "STOP", "SET", "CLEAR", "DELETE", "STATUS", "LOG", "TAIL", "HELP", "QUIT",
                "METRICS", "EVENTS", "WAIT", "COVERAGE", "CORPORA",
            ])
        #expect(try connection.request("QUIT") == ["OK bye"])
        #expect(try connection.readLine() == nil)
    }

    @Test func startStatusStopIsIdempotent() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        // Started, with a warning: the alphabet lacks letters of the target.
        #expect(
            try connection.request(#"START work target="to be" monkeys=5 interval=20ms alphabet="abc ""#)
                == [#"OK started work; warning: the target can never be typed: the alphabet lacks "t", "o" and "e""#])
        #expect(try connection.request("START work").first?.hasPrefix("OK started work; warning: ") == true)
        let status = try connection.request("STATUS work")
        #expect(status.count == 2 && status[1] == "OK")
        let session = try fields(status[0])
        #expect(session["type"] == "session")
        #expect(session["name"] == "work")
        #expect(session["state"] == "running")
        #expect(session["monkeys"] == "5")
        #expect(session["interval"] == "20ms")
        #expect(session["alphabet"] == "abc ")
        #expect(session["target"] == "to be")
        for key in ["typed", "entries", "hits", "best"] { #expect(session[key] != nil) }
        #expect(try connection.request("STOP work") == ["OK stopped work"])
        #expect(try connection.request("STOP work") == ["OK stopped work"])
        let stopped = try fields(try connection.request("STATUS work")[0])
        #expect(stopped["state"] == "stopped")
        // Stopped means no more typing: the count stays put.
        let typed = stopped["typed"]
        let later = try fields(try connection.request("STATUS work")[0])
        #expect(later["typed"] == typed)
    }

    @Test func statusListsEverySessionSortedByName() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        _ = try connection.request("START b interval=1h")
        _ = try connection.request("START a interval=1h")
        let lines = try connection.request("STATUS")
        #expect(lines.count == 3)
        #expect(try lines.dropLast().map { try fields($0)["name"] } == ["a", "b"])
    }

    @Test func typingProducesNumberedEntriesOfTheRightShape() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        _ = try connection.request("START s monkeys=7 interval=1ms alphabet=xyz")
        #expect(try eventually { try Int(fields(connection.request("STATUS s")[0])["entries"] ?? "0") ?? 0 >= 20 })
        _ = try connection.request("STOP s")
        let log = try connection.request("LOG s")
        #expect(log.last == "OK")
        let entries = try log.dropLast().map(fields)
        #expect(entries.count >= 20)
        for (index, entry) in entries.enumerated() {
            #expect(entry["type"] == "entry")
            #expect(entry["session"] == "s")
            #expect(entry["number"] == String(index + 1))
            #expect(entry["id"] == String(index + 1))
            let text = entry["text"] ?? ""
            #expect(text.count == 7 && text.allSatisfy { "xyz".contains($0) })
        }
    }

    @Test func setChangesSettingsLive() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        _ = try connection.request("START s monkeys=2 interval=1ms")
        #expect(try connection.request("SET s monkeys=9 alphabet=q") == ["OK updated s"])
        // Every entry typed after the OK has the new shape.
        let tail = try connection.request("LOG s")
        // The first tick may not have come yet: then every entry is "after".
        let after = tail.count < 2 ? 0 : try fields(tail[tail.count - 2])["id"].flatMap { UInt64($0) } ?? 0
        #expect(try eventually { try connection.request("LOG s after=\(after)").count > 3 })
        let fresh = try connection.request("LOG s after=\(after)").dropLast().map(fields)
        for entry in fresh { #expect(entry["text"] == "qqqqqqqqq") }
        #expect(try connection.request("SET nope monkeys=3").first?.hasPrefix("ERR no-such-session") == true)
    }

    @Test func clearRestartsNumberingButNotIds() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        _ = try connection.request("START s interval=1ms")
        #expect(try eventually { try connection.request("LOG s").count > 5 })
        _ = try connection.request("STOP s")
        let before = try connection.request("LOG s").dropLast().map(fields)
        let lastID = UInt64(before.last?["id"] ?? "0") ?? 0
        #expect(try connection.request("CLEAR s") == ["OK cleared s"])
        #expect(try connection.request("LOG s") == ["OK"])
        let status = try fields(try connection.request("STATUS s")[0])
        #expect(status["entries"] == "0" && status["typed"] == "0")
        _ = try connection.request("START s interval=1ms")
        #expect(try eventually { try connection.request("LOG s").count > 3 })
        let after = try connection.request("LOG s").dropLast().map(fields)
        #expect(after.first?["number"] == "1")
        #expect(UInt64(after.first?["id"] ?? "0") ?? 0 > lastID)
    }

    @Test func deleteRemovesTheSession() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        _ = try connection.request("START s")
        #expect(try connection.request("DELETE s") == ["OK deleted s"])
        #expect(try connection.request("STATUS s").first?.hasPrefix("ERR no-such-session") == true)
        #expect(try connection.request("DELETE s").first?.hasPrefix("ERR no-such-session") == true)
        #expect(try connection.request("STATUS") == ["OK"])
    }

    @Test func logSelectsLastAndAfter() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        _ = try connection.request("START s interval=1ms")
        #expect(try eventually { try connection.request("LOG s").count > 12 })
        _ = try connection.request("STOP s")
        let all = try connection.request("LOG s").dropLast().map(fields)
        let last3 = try connection.request("LOG s last=3").dropLast().map(fields)
        #expect(last3.map { $0["id"] } == all.suffix(3).map { $0["id"] })
        let after5 = try connection.request("LOG s after=5").dropLast().map(fields)
        #expect(after5.first?["id"] == "6")
        let both = try connection.request("LOG s after=5 last=2").dropLast().map(fields)
        #expect(both.map { $0["id"] } == all.suffix(2).map { $0["id"] })
        #expect(try connection.request("LOG s last=0") == ["OK"])
        #expect(try connection.request("LOG s after=999999") == ["OK"])
    }

    @Test func hitsAreMarkedAndCounted() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        // With a one-letter alphabet every entry contains the target.
        _ = try connection.request("START s alphabet=a monkeys=3 target=aa interval=1ms")
        #expect(try eventually { try connection.request("LOG s").count > 3 })
        _ = try connection.request("STOP s")
        let entries = try connection.request("LOG s").dropLast().map(fields)
        #expect(entries.allSatisfy { $0["hit"] == "yes" })
        let status = try fields(try connection.request("STATUS s")[0])
        #expect(status["hits"] == status["typed"])
        #expect(status["best"] == "aa")
        #expect(eventually { daemon.standardError.contains("hit:") })
    }

    @Test func pipelinedRequestsAnswerInOrder() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        var batch = ""
        for index in 0..<150 {
            batch += index % 3 == 0 ? "PING\n" : index % 3 == 1 ? "START s\(index) interval=1h\n" : "NOPE\n"
        }
        try connection.send(Array(batch.utf8))
        for index in 0..<150 {
            let response = try connection.readResponse()
            switch index % 3 {
            case 0: #expect(response == ["OK pong"])
            case 1: #expect(response == ["OK started s\(index)"])
            default: #expect(response.first?.hasPrefix("ERR unknown-command") == true)
            }
        }
    }

    @Test func crlfAndEmptyLinesAreTolerated() throws {
        let daemon = try DaemonProcess()
        let connection = try daemon.connect()
        try connection.send(Array("\n\r\nPING\r\n\nhello\n".utf8))
        #expect(try connection.readResponse() == ["OK pong"])
        #expect(try connection.readResponse().first?.hasPrefix("OK monkeyd") == true)
    }
}
