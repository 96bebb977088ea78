import Foundation
import MonkeyCore
import MonkeyShell
import Testing

/// Where `make corpus` installed Shakespeare, if it did.
enum ShakespeareCorpus {
    static let directory: String? = {
        let corpora =
            ProcessInfo.processInfo.environment["MONKEYD_CORPUS_DIR"] ?? DefaultPaths.current().stateDirectory
            + "/corpora"
        let path = corpora + "/shakespeare"
        return FileManager.default.fileExists(atPath: path + "/hamlet.txt") ? path : nil
    }()
}

/// The figures of the real corpus, when `make corpus` has installed it
/// (in `MONKEYD_CORPUS_DIR`, or `corpora` in the default state directory):
/// the counts the design was measured with, and the expected coverage's windows
/// to 99.99 % (monkeyd(8)). Every behaviour is tested on synthetic corpora elsewhere.
@Suite("Shakespeare corpus", .enabled(if: ShakespeareCorpus.directory != nil))
struct ShakespeareCorpusTests {
    static func corpus() throws -> Corpus {
        let limits = CorpusLimits()
        let files = try CorpusDirectory.read(
            try #require(ShakespeareCorpus.directory), isWork: CorpusSource.isWorkFile,
            byteLimit: limits.maximumFileBytes)
        let source = try CorpusSource(name: "shakespeare", files: files.map { ($0.name, $0.bytes) }, limits: limits)
        return try Corpus(source: source, alphabet: .lowercaseLatin, limits: limits)
    }

    @Test func holdsTheLettersOfTheFortyTwoTexts() throws {
        let corpus = try Self.corpus()
        #expect(corpus.works.count == 42)
        #expect(corpus.characterCount == 3_811_927)
        #expect(corpus.works.first?.name == "alls_well_that_ends_well")
    }

    @Test(arguments: [(9, 2_792_031, "5.636e+12"), (7, 1_586_470, "1.067e+10")])
    func expectsTheFormulasWindows(chunkLength: Int, distinct: Int, windows: String) throws {
        let index = ChunkIndex(corpus: try Self.corpus(), chunkLength: chunkLength)
        #expect(index.distinctChunks == distinct)
        let expected = ExpectedCoverage(index: index)
        let reached = try #require(expected.windows(toReach: 0.9999))
        #expect(WideNumber(reached).formatted == windows)
    }
}
