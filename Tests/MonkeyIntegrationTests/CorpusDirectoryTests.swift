import Foundation
import MonkeyCore
import MonkeyShell
import Testing

/// Reading a corpus directory from disk: what is a work, what is refused, and the errors' words.
@Suite("Corpus directory")
struct CorpusDirectoryTests {
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String, byteLimit: Int = 1 << 20) throws(CorpusDirectory.Failure) -> [String: String] {
        let files = try CorpusDirectory.read(path, isWork: CorpusSource.isWorkFile, byteLimit: byteLimit)
        return Dictionary(uniqueKeysWithValues: files.map { ($0.name, String(decoding: $0.bytes, as: UTF8.self)) })
    }

    @Test func readsTheRegularTxtFilesOnly() throws {
        let directory = TemporaryDirectory()
        let corpus = directory.path + "/plays"
        try FileManager.default.createDirectory(atPath: corpus + "/sub.txt", withIntermediateDirectories: true)
        try Self.write("To be", to: corpus + "/hamlet.txt")
        try Self.write("Is this", to: corpus + "/macbeth.txt")
        try Self.write("notes", to: corpus + "/README")
        try Self.write("", to: corpus + "/hamlet.txt~")
        #expect(mkfifo(corpus + "/pipe.txt", 0o644) == 0)
        // A link inside the directory is followed.
        #expect(symlink("hamlet.txt", corpus + "/again.txt") == 0)
        #expect(symlink("sub.txt", corpus + "/subdir.txt") == 0)
        #expect(try Self.read(corpus) == ["hamlet.txt": "To be", "macbeth.txt": "Is this", "again.txt": "To be"])
    }

    @Test func readsThroughALinkedCorpusDirectory() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/real", withIntermediateDirectories: true)
        try Self.write("a", to: directory.path + "/real/a.txt")
        #expect(symlink("a.txt", directory.path + "/real/b.txt") == 0)
        #expect(symlink(directory.path + "/real", directory.path + "/linked") == 0)
        #expect(try Self.read(directory.path + "/linked") == ["a.txt": "a", "b.txt": "a"])
    }

    @Test func refusesALinkThatLeadsOut() throws {
        let directory = TemporaryDirectory()
        let corpus = directory.path + "/c"
        try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
        try Self.write("secret", to: directory.path + "/outside.txt")
        try Self.write("a", to: corpus + "/a.txt")
        #expect(symlink("../outside.txt", corpus + "/b.txt") == 0)
        #expect(throws: CorpusDirectory.Failure.linkOutside(file: "b.txt")) { try Self.read(corpus) }
        try FileManager.default.removeItem(atPath: corpus + "/b.txt")
        #expect(symlink("/etc/passwd", corpus + "/b.txt") == 0)
        #expect(throws: CorpusDirectory.Failure.linkOutside(file: "b.txt")) { try Self.read(corpus) }
        // A prefix of the directory's name is not inside it.
        try FileManager.default.removeItem(atPath: corpus + "/b.txt")
        try FileManager.default.createDirectory(atPath: corpus + "x", withIntermediateDirectories: true)
        try Self.write("near", to: corpus + "x/n.txt")
        #expect(symlink(corpus + "x/n.txt", corpus + "/b.txt") == 0)
        #expect(throws: CorpusDirectory.Failure.linkOutside(file: "b.txt")) { try Self.read(corpus) }
    }

    @Test func refusesALinkToNowhere() throws {
        let directory = TemporaryDirectory()
        #expect(symlink("gone.txt", directory.path + "/a.txt") == 0)
        #expect(throws: CorpusDirectory.Failure.unreadable(file: "a.txt", reason: "No such file or directory")) {
            try Self.read(directory.path)
        }
    }

    @Test func saysWhenTheDirectoryIsMissing() throws {
        let directory = TemporaryDirectory()
        #expect(throws: CorpusDirectory.Failure.missing(path: directory.path + "/none")) {
            try Self.read(directory.path + "/none")
        }
        try Self.write("x", to: directory.path + "/file")
        #expect(throws: CorpusDirectory.Failure.missing(path: directory.path + "/file")) {
            try Self.read(directory.path + "/file")
        }
    }

    @Test func refusesFilesPastTheLimitBeforeReadingThem() throws {
        let directory = TemporaryDirectory()
        try Self.write("12345", to: directory.path + "/a.txt")
        try Self.write("123456", to: directory.path + "/b.txt")
        #expect(try Self.read(directory.path, byteLimit: 11).count == 2)
        #expect(throws: CorpusDirectory.Failure.tooLarge(limit: 10)) { try Self.read(directory.path, byteLimit: 10) }
    }

    /// A file written to while it is read: its size and time stamps change.
    @Test(arguments: ["append", "rewrite", "replace"])
    func findsAFileThatChangesWhileItIsRead(change: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/a.txt"
        try Self.write("to be or not", to: path)
        #expect(throws: CorpusDirectory.Failure.changedWhileRead(file: "a.txt")) {
            _ = try CorpusDirectory.read(directory.path, isWork: CorpusSource.isWorkFile, byteLimit: 100) { _ in
                switch change {
                case "append":
                    let handle = FileHandle(forWritingAtPath: path)
                    handle?.seekToEndOfFile()
                    handle?.write(Data("!".utf8))
                    try? handle?.close()
                case "rewrite":
                    // The same size: only the time stamps tell.
                    let handle = FileHandle(forWritingAtPath: path)
                    handle?.write(Data("TO".utf8))
                    try? handle?.close()
                default:
                    // Another file renamed into its place: the one read loses its
                    // name, which changes its ctime though not its bytes.
                    try? Self.write("to be or not", to: path + ".new")
                    _ = rename(path + ".new", path)
                }
            }
        }
        // Once it is left alone, it reads.
        #expect(try Self.read(directory.path).count == 1)
    }

    /// From the directory to an index, and every error in the core's words.
    @Test func makesACorpusOfTheFiles() throws {
        let directory = TemporaryDirectory()
        try Self.write("To be, or not to be.", to: directory.path + "/b.txt")
        try Self.write("Ay, there's the rub.", to: directory.path + "/a.txt")
        let limits = CorpusLimits()
        let files = try CorpusDirectory.read(
            directory.path, isWork: CorpusSource.isWorkFile, byteLimit: limits.maximumFileBytes)
        let source = try CorpusSource(name: "plays", files: files.map { ($0.name, $0.bytes) }, limits: limits)
        let corpus = try Corpus(source: source, alphabet: .lowercaseLatin, limits: limits)
        #expect(corpus.works.map(\.name) == ["a", "b"])
        #expect(corpus.text(corpus.works[0].range) == "aytherestherub")
        try Data([0x61, 0xFF]).write(to: URL(fileURLWithPath: directory.path + "/c.txt"))
        let bad = try CorpusDirectory.read(directory.path, isWork: CorpusSource.isWorkFile, byteLimit: 1000)
        #expect(throws: CorpusError.notUTF8(file: "c.txt", offset: 1)) {
            try CorpusSource(name: "plays", files: bad.map { ($0.name, $0.bytes) }, limits: limits)
        }
    }
}
