import Foundation
import Testing

/// The rules of the house that no compiler checks (ARCHITECTURE.md): which
/// module may import what, and what the client binary links. A broken rule
/// fails with a sentence naming the rule and the place.
@Suite("Architecture")
struct ArchitectureTests {
    /// One import line of a source file.
    struct Import {
        let module: String
        let target: String
        let place: String
    }

    /// Every `import` in `Sources/`, with the target (directory) it is in.
    static func imports() throws -> [Import] {
        let sources = JournalTests.repository.appendingPathComponent("Sources")
        var found: [Import] = []
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let target = String(relative.split(separator: "/").first ?? "")
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let words = line.split(separator: " ")
                guard let importWord = words.firstIndex(of: "import"), importWord + 1 < words.count else { continue }
                // Only declarations: `import X`, `internal import X`, `@testable import X`.
                guard words[..<importWord].allSatisfy({ ["internal", "public", "package", "@_exported"].contains($0) })
                else { continue }
                found.append(
                    Import(
                        module: String(words[importWord + 1]), target: target,
                        place: "Sources/\(relative):\(index + 1)"))
            }
        }
        #expect(found.count > 50, "the scan found the imports")
        return found
    }

    /// Fails with the rule and every place that breaks it.
    static func check(_ rule: String, _ imports: [Import], allowed: (Import) -> Bool) {
        let broken = imports.filter { !allowed($0) }
        #expect(
            broken.isEmpty,
            "Rule broken: \(rule). \(broken.map { "\($0.place) imports \($0.module)" }.joined(separator: "; "))")
    }

    /// CChecksum and CPrefetch reach processor instructions Swift cannot
    /// (CRC-32C, the prefetch hint); neither does I/O.
    @Test func theCoreImportsNothingButItsProcessorInstructions() throws {
        let core = try Self.imports().filter { $0.target == "MonkeyCore" }
        Self.check(
            "the core (Sources/MonkeyCore) imports nothing but CChecksum and CPrefetch: no I/O, clocks or Foundation",
            core
        ) {
            ["CChecksum", "CPrefetch"].contains($0.module)
        }
    }

    @Test func onlyMonkeySystemdReachesLibsystemd() throws {
        Self.check("only MonkeySystemd imports CSystemd (libsystemd)", try Self.imports()) {
            $0.module != "CSystemd" || $0.target == "MonkeySystemd"
        }
    }

    /// Glibc and CShim are how Swift reaches system calls; MonkeySystemd
    /// needs Glibc's types for libsystemd's calls, and makes none itself.
    @Test func onlyTheShellReachesSystemCalls() throws {
        Self.check(
            "only MonkeyShell and CShim make system calls: no other module imports Glibc or CShim "
                + "(MonkeySystemd only for the C types of libsystemd's calls)", try Self.imports()
        ) {
            !["Glibc", "CShim"].contains($0.module) || $0.target == "MonkeyShell"
                || ($0.module == "Glibc" && $0.target == "MonkeySystemd")
        }
    }

    @Test func noSourceImportsFoundationAndOnlyTheDaemonDispatch() throws {
        let imports = try Self.imports()
        Self.check("no source imports Foundation: the binaries stay small and start fast", imports) {
            $0.module != "Foundation"
        }
        Self.check("only the daemon (MonkeyDaemon) uses Dispatch: the core and the client are single-threaded", imports)
        {
            $0.module != "Dispatch" || $0.target == "MonkeyDaemon"
        }
    }

    @Test func monkeyctlDoesNotLinkLibsystemd() throws {
        func needed(_ binary: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
            process.arguments = ["-d", binary]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        let client = try needed(Binaries.monkeyctl)
        #expect(client.contains("(NEEDED)"), "readelf read \(Binaries.monkeyctl)")
        #expect(
            !client.contains("libsystemd"),
            "Rule broken: monkeyctl never links libsystemd. readelf -d \(Binaries.monkeyctl) lists it as NEEDED.")
        #expect(try needed(Binaries.monkeyd).contains("libsystemd"), "monkeyd links libsystemd (the check sees it)")
    }
}
