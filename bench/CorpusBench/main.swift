// The corpus index's figures, outside `make test`: build time and memory for a
// corpus at a chunk length, and windows checked per CPU-second over uniformly
// random letters, with and without the typing of them.
//
//   swift build -c release --product corpus-bench
//   .build/release/corpus-bench CORPUS_DIRECTORY [CHUNK [ENTRY_LENGTH [ENTRIES [ROUNDS [BATCH]]]]]
//
// BATCH entries (default 1) are typed and scanned with one call
// (`scan(entries:entryLength:into:)`), as a typing thread would a batch.
//
// Times are CPU time of this thread (CLOCK_THREAD_CPUTIME_ID), so that other
// load on a shared machine slows the figures less than wall-clock time would.
import Glibc
import MonkeyCore
import MonkeyShell

func cpuSeconds(_ clock: clockid_t = CLOCK_THREAD_CPUTIME_ID) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// The resident set now, from /proc/self/statm (pages).
func residentMiB() -> Double {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard
        withUnsafeMutablePointer(
            to: &size,
            { sizePointer in
                withUnsafeMutablePointer(to: &resident) { residentPointer in
                    withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
                }
            }) == 2
    else { return 0 }
    return Double(resident * Int(sysconf(Int32(_SC_PAGESIZE)))) / 1_048_576
}

func maximumResidentMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// Letters from 16-bit lanes of wyrand, four a draw, by multiply-shift:
/// biased by at most 26/65536, which a benchmark does not mind.
struct LetterTyper {
    var state: UInt64
    let letters: [UInt8]

    mutating func type(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let count = UInt64(letters.count)
        letters.withUnsafeBufferPointer { letters in
            var index = 0
            while index < buffer.count {
                state &+= 0xA076_1D64_78BD_642F
                let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
                var draw = product.high ^ product.low
                for _ in 0..<4 where index < buffer.count {
                    buffer[index] = letters[Int(((draw & 0xFFFF) * count) >> 16)]
                    draw >>= 16
                    index += 1
                }
            }
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: corpus-bench CORPUS_DIRECTORY [CHUNK [ENTRY_LENGTH [ENTRIES [ROUNDS [BATCH]]]]]")
    exit(2)
}
let directory = arguments[1]
let chunk = arguments.count > 2 ? Int(arguments[2]) ?? 9 : 9
let entryLength = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000
let entries = arguments.count > 4 ? Int(arguments[4]) ?? 20_000 : 20_000
let rounds = arguments.count > 5 ? Int(arguments[5]) ?? 3 : 3
let batch = max(1, arguments.count > 6 ? Int(arguments[6]) ?? 1 : 1)

let baseline = residentMiB()
let limits = CorpusLimits()
let startRead = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
let corpus: Corpus
do {
    let files = try CorpusDirectory.read(
        directory, isWork: CorpusSource.isWorkFile, byteLimit: limits.maximumFileBytes)
    let source = try CorpusSource(
        name: "bench", files: files.map { ($0.name, $0.bytes) }, limits: limits)
    corpus = try Corpus(source: source, alphabet: .lowercaseLatin, limits: limits)
} catch {
    print("corpus-bench: \(error)")
    exit(1)
}
let startIndex = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
let index = ChunkIndex(corpus: corpus, chunkLength: chunk)
let built = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
print(
    "corpus: \(corpus.works.count) works, \(corpus.characterCount) characters; read and normalised in "
        + "\(Int((startIndex - startRead) * 1000)) ms")
print(
    "index at K=\(chunk): \(index.distinctChunks) distinct chunks of \(index.windowCount) windows, built in "
        + "\(Int((built - startIndex) * 1000)) ms CPU; index \(index.memoryBytes >> 20) MiB "
        + "(filter \(index.filterBytes >> 10) KiB); RSS \(Int(residentMiB())) MiB (\(Int(baseline)) MiB before reading), at most \(Int(maximumResidentMiB())) MiB"
)

let startFigures = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
let expected = ExpectedCoverage(index: index)
let startDigest = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
let digest = CorpusDigest(corpus: corpus, chunkLength: chunk)
let done = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
let reach = expected.windows(toReach: 0.9999).map { WideNumber($0).formatted } ?? "never"
print(
    "expected coverage in \(Int((startDigest - startFigures) * 1000)) ms (99.99 % after \(reach) windows); "
        + "digest \(digest.description.prefix(12))… in \(Int((done - startDigest) * 1000)) ms")

var typer = LetterTyper(state: 42, letters: Array("abcdefghijklmnopqrstuvwxyz".utf8))
var text = [UInt8](repeating: 0, count: entryLength * batch)
var matches: [ChunkID] = []
matches.reserveCapacity(1024)
var batchMatches: [EntryMatch] = []
batchMatches.reserveCapacity(1024)
let calls = entries / batch
let windows = Double(calls * batch * max(0, entryLength - chunk + 1))
let characters = Double(calls * batch * entryLength)
for round in 1...rounds {
    var found = 0
    let typingStart = cpuSeconds()
    text.withUnsafeMutableBufferPointer { buffer in
        for _ in 0..<calls { typer.type(into: buffer) }
    }
    let typingOnly = cpuSeconds() - typingStart
    let bothStart = cpuSeconds()
    text.withUnsafeMutableBufferPointer { buffer in
        for _ in 0..<calls {
            typer.type(into: buffer)
            if batch == 1 {
                matches.removeAll(keepingCapacity: true)
                index.scan(UnsafeBufferPointer(buffer), into: &matches)
                found += matches.count
            } else {
                batchMatches.removeAll(keepingCapacity: true)
                index.scan(entries: UnsafeBufferPointer(buffer), entryLength: entryLength, into: &batchMatches)
                found += batchMatches.count
            }
        }
    }
    let both = cpuSeconds() - bothStart
    let scanOnly = max(both - typingOnly, 1e-9)
    print(
        "round \(round): typing \(Int(characters / typingOnly / 1e6)) M chars/s; typing+checking "
            + "\(Int(windows / both / 1e6)) M windows/CPU-s; checking alone \(Int(windows / scanOnly / 1e6)) M "
            + "windows/s (\(format3(scanOnly / windows * 1e9)) ns a window); \(found) windows matched")
}

func format3(_ value: Double) -> String {
    let scaled = Int((value * 1000).rounded())
    let fraction = String(scaled % 1000)
    return "\(scaled / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
