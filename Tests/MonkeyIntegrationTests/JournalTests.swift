import Foundation
import Glibc
import MonkeyCore
import Testing

/// Events as journald stores them: a private systemd-journald started by
/// `scripts/test-journald` in its own mount namespace, read back with
/// `journalctl -o json`.
@Suite(
    "Journal entries",
    .enabled(
        if: getuid() == 0 && FileManager.default.fileExists(atPath: "/lib/systemd/systemd-journald"),
        "needs root (for a private mount namespace) and systemd-journald"))
struct JournalTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// monkeyd's entries, by event, in the order they were written.
    static func entries() throws -> [[String: String]] {
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/test-journald")
        process.arguments = [Binaries.directory]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("scripts/test-journald failed") }
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line))
            return (object as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        }
    }

    @Test func everyControlActionIsOneStructuredEntry() throws {
        let entries = try JournalTests.entries()
        func first(_ event: String) throws -> [String: String] {
            try #require(entries.first { $0["MONKEY_EVENT"] == event }, "no \(event) entry")
        }
        for entry in entries {
            #expect(entry["SYSLOG_IDENTIFIER"] == "monkeyd")
            #expect(entry["_TRANSPORT"] == "journal", "sent natively, not through stderr")
        }
        let start = try first("start")
        #expect(start["MESSAGE"] == "created and started session words: 2 monkeys every 1ms")
        #expect(start["MESSAGE_ID"] == Event.Kind.start.messageID)
        #expect(start["PRIORITY"] == "5")
        #expect(start["MONKEY_SESSION"] == "words")
        #expect(start["MONKEY_TARGET"] == "ab")
        #expect(start["MONKEY_MONKEYS"] == "2")
        #expect(start["MONKEY_INTERVAL"] == "1ms")
        #expect(start["MONKEY_ALPHABET"] == "ab")
        #expect(start["MONKEY_PEER_UID"] == "0")
        #expect(Int(start["MONKEY_PEER_PID"] ?? "") ?? 0 > 0)

        let hit = try first("hit")
        #expect(hit["MESSAGE_ID"] == Event.Kind.hit.messageID)
        #expect(hit["MONKEY_TARGET"] == "ab")
        #expect(hit["MONKEY_ENTRY_TEXT"]?.contains("ab") == true)
        #expect(UInt64(hit["MONKEY_ENTRY_ID"] ?? "") != nil)
        #expect(UInt64(hit["MONKEY_ENTRY_NUMBER"] ?? "") != nil)
        #expect(hit["MONKEY_PEER_UID"] == nil, "a hit is nobody's request")

        let set = try first("set")
        #expect(set["MONKEY_MONKEYS"] == "3")
        #expect(set["MONKEY_INTERVAL"] == "1h")
        #expect(set["MONKEY_TARGET"] == nil, "only what changed")
        for kind in [Event.Kind.stop, .clear, .delete] {
            let entry = try first(kind.rawValue)
            #expect(entry["MESSAGE_ID"] == kind.messageID)
            #expect(entry["MONKEY_SESSION"] == "words")
            #expect(entry["MONKEY_PEER_UID"] == "0")
        }
        // A target that can never be typed: started all the same, and the journal says why.
        let hopeless = try #require(entries.first { $0["MONKEY_SESSION"] == "hopeless" })
        #expect(
            hopeless["MONKEY_WARNING"]
                == "the target can never be typed: entries of 1 character cannot hold a 6-character target")
        let reload = try first("reload")
        #expect(reload["MESSAGE_ID"] == Event.Kind.reload.messageID)
        #expect(reload["MONKEY_CONFIG"]?.hasSuffix("/monkeyd.conf") == true)
        #expect(reload["MONKEY_SESSION"] == nil)
        let reloadIndex = try #require(entries.firstIndex { $0["MONKEY_EVENT"] == "reload" })
        #expect(
            !entries[..<reloadIndex].contains { $0["MONKEY_EVENT"] == "typed" }, "typed entries need log_typed = yes")
        let typed = try first("typed")
        #expect(typed["MESSAGE_ID"] == Event.Kind.typed.messageID)
        #expect(typed["PRIORITY"] == "7")
        #expect(typed["MONKEY_SESSION"] == "typing")
        #expect(typed["MONKEY_ENTRY_TEXT"] == "x")
        #expect(typed["MONKEY_ENTRY_NUMBER"] == "1")
        #expect(typed["MONKEY_ENTRY_ID"] == "1")
        #expect(typed["MESSAGE"] == "typing: 1. x")
        #expect(entries.contains { $0["MESSAGE"] == "stopped" && $0["MESSAGE_ID"] == nil })
    }

    @Test func theCatalogExplainsEveryKind() throws {
        let catalog = try String(
            contentsOf: JournalTests.repository.appendingPathComponent("packaging/monkeyd.catalog"), encoding: .utf8)
        for kind in Event.Kind.allCases {
            #expect(catalog.contains("-- \(kind.messageID)\n"), "no catalog entry for \(kind)")
        }
    }
}
