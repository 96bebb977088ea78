import Foundation
import MonkeyCore
import Testing

/// What ships beside the binaries agrees with the code: the default
/// monkeyd.conf, its man page, and the units as systemd reads them.
@Suite("Packaging")
struct PackagingTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: JournalTests.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theShippedConfigurationShowsEveryKeyAtItsDefault() throws {
        let shipped = try PackagingTests.text("packaging/monkeyd.conf")
        let uncommented = shipped.split(separator: "\n").map {
            $0.hasPrefix("#") && $0.contains(" = ") ? $0.dropFirst() : $0
        }
        .joined(separator: "\n")
        #expect(try Configuration.parse(uncommented) == Configuration())
        for key in Configuration.keys { #expect(shipped.contains("#\(key) = "), "\(key) missing") }
    }

    @Test func theManPageDocumentsEveryKey() throws {
        let page = try PackagingTests.text("man/monkeyd.conf.5")
        for key in Configuration.keys { #expect(page.contains(".It Cm \(key) No = "), "\(key) undocumented") }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/systemd-analyze")))
    func theServiceIsSandboxedTightly() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = [
            "security", "--offline=true", "--threshold=15",
            JournalTests.repository.appendingPathComponent("packaging/monkeyd.service").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "exposure above 1.5")
    }
}
