import Foundation
import MonkeyCore
import Testing

/// What ships beside the binaries agrees with the code: the default
/// monkeyd.conf, its man page, the units as systemd reads them, and the
/// Debian package's version and maintainer scripts.
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

    /// monkeyd(8), section METRICS, lists every family the daemon writes.
    @Test func theDaemonManPageListsEveryMetricFamily() throws {
        let page = try PackagingTests.text("man/monkeyd.8")
        let section = try #require(page.components(separatedBy: ".Sh METRICS\n").dropFirst().first)
            .components(separatedBy: "\n.Sh ")[0]
        let daemon = try DaemonProcess()
        _ = try daemon.request("START s interval=1h")
        let families = try daemon.request("METRICS").filter { $0.hasPrefix("# HELP ") }.map {
            String($0.split(separator: " ")[2])
        }
        #expect(families.count > 20)
        for family in families { #expect(section.contains(family), "\(family) is not in monkeyd(8)") }
    }

    /// `make deb` names the package after the daemon's version, so the changelog must be at it.
    @Test func theDebianChangelogIsAtTheDaemonsVersion() throws {
        let changelog = try PackagingTests.text("packaging/debian/changelog")
        let heading = changelog.prefix { $0 != "\n" }
        #expect(heading.hasPrefix("monkeyd (\(Engine.version)) "), "\(heading)")
    }

    /// debhelper writes every maintainer script (debhelper's way): none is kept by hand.
    @Test func noMaintainerScriptIsWrittenByHand() throws {
        let directory = JournalTests.repository.appendingPathComponent("packaging/debian").path
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        for script in ["preinst", "postinst", "prerm", "postrm", "config"] {
            let written = names.filter { $0 == script || $0.hasSuffix(".\(script)") }
            #expect(written.isEmpty, "packaging/debian/\(written.joined(separator: ", "))")
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/systemd-analyze")))
    func theServiceIsSandboxedTightly() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = [
            "security", "--offline=true", "--threshold=4",
            JournalTests.repository.appendingPathComponent("packaging/monkeyd.service").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        // 0.4 with metrics off, as before them (the metrics listener adds no IP address to the shipped unit).
        #expect(process.terminationStatus == 0, "exposure above 0.4")
    }
}
