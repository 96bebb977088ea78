import Testing

@testable import MonkeyCore

/// `journal_size`: a byte count with K, M or G, from 64K to 1G.
struct ConfigurationJournalSizeTests {
    @Test(arguments: [("64K", 64 << 10), ("64M", 64 << 20), ("1G", 1 << 30), ("1048576", 1 << 20)])
    func sizesParse(value: String, bytes: Int) throws {
        #expect(try Configuration.parse("journal_size = \(value)\n").journalSize == bytes)
    }

    @Test(arguments: ["63K", "2G", "0", "lots", "-1M"])
    func sizesOutOfRangeOrUnreadableAreRefusedNamingTheLine(value: String) {
        #expect(throws: Configuration.Problem.self) { try Configuration.parse("\njournal_size = \(value)\n") }
        do {
            _ = try Configuration.parse("\njournal_size = \(value)\n")
        } catch {
            #expect(error.line == 2)
            #expect(error.message.hasPrefix("journal_size: "), "\(error.message)")
        }
    }

    @Test func theDefaultIs64MiB() {
        #expect(Configuration().journalSize == 64 << 20)
    }
}
