import Foundation
import Glibc
import Testing

/// `monkeyctl` end to end: the built client against a real monkeyd, one
/// subcommand at a time, with the default human output.
@Suite("monkeyctl subcommands")
struct MonkeyctlTests {
    @Test func everyChangingSubcommandDoesWhatItSays() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let started = try monkeyctl.run(
            "start", "work", "--target", "to be", "--monkeys", "3", "--interval", "1h", "--alphabet", "abc ")
        #expect(started.status == 0, "\(started)")
        #expect(started.lines == ["started work"])
        // Started all the same, with a warning on stderr.
        #expect(
            started.error
                == #"monkeyctl: warning: the target can never be typed: the alphabet lacks "t", "o" and "e", "#
                + "and entries of 3 characters cannot hold a 5-character target\n", "\(started)")
        let session = try fields(daemon.request("STATUS work")[0])
        #expect(session["state"] == "running")
        #expect(session["monkeys"] == "3")
        #expect(session["interval"] == "1h")
        #expect(session["alphabet"] == "abc ")
        #expect(session["target"] == "to be")
        // The first tick is an hour away: nothing is typed yet, so the line is exact.
        #expect(
            try monkeyctl.run("status", "work").lines == [
                #"work  running  3 monkeys every 1h  typed 0, 0 kept, 0 hits  best "" of target "to be"  alphabet "abc "  never a hit"#
            ])

        let updated = try monkeyctl.run(
            "set", "work", "--monkeys", "1", "--target", "", "--alphabet", "abcdefghijklmnopqrstuvwxyz")
        #expect(updated.status == 0, "\(updated)")
        #expect(updated.lines == ["updated work"])
        #expect(
            try monkeyctl.run("status", "work").lines == [
                "work  running  1 monkey every 1h  typed 0, 0 kept, 0 hits  no target"
            ])

        #expect(try monkeyctl.run("stop", "work").lines == ["stopped work"])
        #expect(try fields(daemon.request("STATUS work")[0])["state"] == "stopped")
        #expect(try monkeyctl.run("stop", "work").lines == ["stopped work"], "stopping twice is fine")
        #expect(try monkeyctl.run("status").lines.first?.hasPrefix("work  stopped  1 monkey every 1h") == true)

        #expect(try monkeyctl.run("start", "work").lines == ["started work"])
        #expect(try monkeyctl.run("start", "work").lines == ["started work"], "start is idempotent")
        #expect(try monkeyctl.run("clear", "work").lines == ["cleared work"])
        let deleted = try monkeyctl.run("delete", "work")
        #expect(deleted.status == 0, "\(deleted)")
        #expect(deleted.lines == ["deleted work"])
        #expect(try daemon.request("STATUS work").first?.hasPrefix("ERR no-such-session") == true)
        #expect(try monkeyctl.run("status").lines == ["no sessions"])
    }

    @Test func sessionDefaultsToDefault() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        #expect(try monkeyctl.run("start", "--interval", "1h").lines == ["started default"])
        #expect(try fields(daemon.request("STATUS default")[0])["interval"] == "1h")
        #expect(try monkeyctl.run("set", "--monkeys", "2").lines == ["updated default"])
        #expect(try fields(daemon.request("STATUS default")[0])["monkeys"] == "2")
        #expect(try monkeyctl.run("status").lines.first?.hasPrefix("default  running  2 monkeys every 1h") == true)
        #expect(try monkeyctl.run("stop").lines == ["stopped default"])
        #expect(try monkeyctl.run("clear").lines == ["cleared default"])
        for listing in ["log", "tail"] {
            let result = try monkeyctl.run(listing)
            #expect(result.status == 0 && result.output == "", "\(listing): \(result)")
        }
        #expect(try monkeyctl.run("delete").lines == ["deleted default"])
        #expect(try daemon.request("STATUS default").first?.hasPrefix("ERR no-such-session") == true)
    }

    @Test func logAndTailPrintNumberedEntries() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let entries = try monkeyctl.typedEntries(daemon, "--monkeys", "4", "--alphabet", "xyz", count: 25)
        let expected = entries.map { "\($0["number"] ?? "?"). \($0["text"] ?? "?")" }
        #expect(expected.count >= 25)
        for line in expected {
            #expect(line.wholeMatch(of: /[0-9]+\. [xyz]{4}/) != nil, "\(line)")
        }

        let log = try monkeyctl.run("log", "s")
        #expect(log.status == 0, "\(log)")
        #expect(log.lines == expected, "log prints every retained entry, oldest first")
        #expect(try monkeyctl.run("log", "s", "-n", "4").lines == Array(expected.suffix(4)))
        #expect(try monkeyctl.run("log", "s", "-n", "0").lines == [])

        let tail = try monkeyctl.run("tail", "s")
        #expect(tail.status == 0, "\(tail)")
        #expect(tail.lines == Array(expected.suffix(10)), "tail shows the last 10 by default")
        #expect(try monkeyctl.run("tail", "s", "-n", "3").lines == Array(expected.suffix(3)))
        #expect(try monkeyctl.run("tail", "s", "-n", "0").lines == [])
        #expect(try monkeyctl.run("tail", "s", "-n", "100000").lines == expected)
    }

    @Test func optionsMayBeSpelledAndPlacedInManyWays() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let entries = try monkeyctl.typedEntries(daemon, "--alphabet", "q", count: 5)
        let lastThree = entries.suffix(3).map { "\($0["number"] ?? "?"). q" }
        let spellings: [[String]] = [
            ["tail", "s", "-n", "3"], ["tail", "s", "-n3"], ["tail", "s", "--lines", "3"], ["tail", "s", "--lines=3"],
            ["-n", "3", "tail", "s"], ["tail", "-n", "3", "s"], ["tail", "s", "-n", "7", "-n", "3"],
            ["log", "s", "-n", "3"], ["log", "-n3", "--", "s"],
        ]
        for arguments in spellings {
            let result = try monkeyctl.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.lines == lastThree, "\(arguments)")
        }
        let socketLast = try MonkeyctlProcess.run(["tail", "s", "-n", "3", "--socket=\(daemon.socketPath)"])
        #expect(socketLast.lines == lastThree, "--socket=PATH after the subcommand: \(socketLast)")
    }

    @Test func hitsAreMarked() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        // With a one-letter alphabet every entry is "aaa", so every entry is a hit.
        let entries = try monkeyctl.typedEntries(
            daemon, "--alphabet", "a", "--target", "aa", "--monkeys", "3", count: 5)
        let log = try monkeyctl.run("log", "s")
        #expect(log.status == 0, "\(log)")
        #expect(log.lines == entries.map { "\($0["number"] ?? "?"). aaa  *hit*" })
        #expect(log.lines.count == entries.count && entries.allSatisfy { $0["hit"] == "yes" })
        let status = try monkeyctl.run("status", "s").lines
        let count = entries.count
        #expect(
            status == [
                "s  stopped  3 monkeys every 1ms  typed \(count), \(count) kept, \(count) hit\(count == 1 ? "" : "s")  "
                    + #"best "aa" of target "aa"  alphabet "a"  1 in 1 · every ~1 millisecond · chance so far 100 %"#
            ])
    }

    @Test func pingHelloAndVersion() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let ping = try monkeyctl.run("ping")
        #expect(ping.status == 0 && ping.lines == ["pong"] && ping.error == "", "\(ping)")
        #expect(try monkeyctl.run("hello").lines == ["monkeyd version=0.1.0 protocol=1"])
        #expect(try monkeyctl.run("version").lines == ["monkeyctl 0.1.0", "monkeyd version=0.1.0 protocol=1"])
        // --version is the client's alone: it does not need a daemon.
        let offline = try MonkeyctlProcess.run(["--socket", "/nonexistent/monkeyd.sock", "--version"])
        #expect(offline.status == 0 && offline.lines == ["monkeyctl 0.1.0"], "\(offline)")
    }

    static let subcommands = [
        "start", "stop", "set", "clear", "delete", "status", "log", "tail", "ping", "hello", "version", "metrics",
        "help",
    ]

    @Test(arguments: subcommands)
    func helpForEverySubcommand(_ subcommand: String) throws {
        // No daemon listens: help is local.
        let socket = ["--socket", "/nonexistent/monkeyd.sock"]
        let usage = "Usage: monkeyctl \(subcommand == "version" ? "hello" : subcommand)"
        var texts: [String] = []
        for arguments in [[subcommand, "--help"], ["--help", subcommand], [subcommand, "-h"], ["help", subcommand]] {
            let result = try MonkeyctlProcess.run(socket + arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.output.hasPrefix(usage), "\(arguments): \(result)")
            #expect(result.output.contains("--socket PATH"), "the global options are listed too")
            #expect(result.error == "")
            texts.append(result.output)
        }
        #expect(Set(texts).count == 1, "every way of asking gives the same help")
    }

    @Test func globalHelpListsEverySubcommand() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try MonkeyctlProcess.run(["--socket", "/nonexistent/monkeyd.sock"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.output.hasPrefix("Usage: monkeyctl [-H [USER@]HOST] [--socket PATH] [--json] SUBCOMMAND"))
            for subcommand in Self.subcommands {
                let isListed = ["\n  \(subcommand) ", "\n  \(subcommand),", ", \(subcommand) "].contains {
                    result.output.contains($0)
                }
                #expect(isListed, "\(subcommand) is listed")
            }
        }
    }

    @Test func helpWinsOverOtherMistakes() throws {
        let result = try MonkeyctlProcess.run(["start", "--bogus", "-n", "abc", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("Usage: monkeyctl start"))
    }
}
