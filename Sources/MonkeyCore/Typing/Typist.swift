/// The typing kernel: types a `TypingJob`'s entries into one buffer of
/// bytes, searches each for the target as it is typed, and answers a
/// `TypedBatch`. Pure and single-threaded; each typing thread keeps one, so
/// that its scratch buffers are allocated once, not per batch or entry.
///
/// Seeded texts are `SeededTyping.text` bit for bit (one wyrand draw per
/// character, `WyRand.next(below:)`); unseeded ones take several exactly
/// uniform characters from each draw (`UniformDigits`, `CharacterStream`).
/// Entries older than the job's `keep` are typed into scratch and checked
/// like the others, but their texts are not kept.
public struct Typist: Sendable {
    /// The carry of `CharacterStream`, then one text that is not kept.
    private var bytes: [UInt8] = []
    /// The carry of symbols, then one text's symbols (alphabets of
    /// characters of several bytes).
    private var symbols: [UInt16] = []

    /// Bytes the kernel may write past a text's end (a group's word, a
    /// character's four bytes); buffers are allocated with this much more.
    static let slack = 8

    public init() {}

    /// Types the job's entries.
    public mutating func type(_ job: TypingJob) -> TypedBatch {
        var scanner = NoTextScanner()
        return type(job, scanner: &scanner)
    }

    /// Types the job's entries and lends each text to `scanner` as it is typed.
    public mutating func type<Scanner: TypedTextScanner>(_ job: TypingJob, scanner: inout Scanner) -> TypedBatch {
        let alphabet = job.alphabet
        let textBytes = job.monkeys * (alphabet.isSingleByte ? 1 : alphabet.widestSymbol)
        let carry = CharacterStream.carryCapacity
        if bytes.count < carry + textBytes + Self.slack {
            bytes = [UInt8](repeating: 0, count: carry + textBytes + Self.slack)
        }
        let symbolCount = alphabet.isSingleByte ? 0 : job.monkeys
        if symbols.count < carry + symbolCount { symbols = [UInt16](repeating: 0, count: carry + symbolCount) }
        let keptCount = min(job.keep, job.count)
        var sink = BatchSink(job: job)
        var random = job.random
        var keptEnds: [Int] = []
        if !alphabet.isSingleByte { keptEnds.reserveCapacity(keptCount) }
        let keptBytes = alphabet.withTables { tables in
            bytes.withUnsafeMutableBufferPointer { bytes in
                symbols.withUnsafeMutableBufferPointer { symbols in
                    [UInt8](unsafeUninitializedCapacity: keptCount * textBytes + Self.slack) { kept, initialized in
                        let scratch = Self.address(bytes)
                        let wide = Self.address(symbols)
                        var stream = alphabet.groupDigits.map {
                            CharacterStream(
                                random: random, digits: $0, groupSize: alphabet.groupSize,
                                groupBytes: tables.groupBytes, carryBytes: scratch, carrySymbols: wide)
                        }
                        var writer = TextWriter(
                            alphabet: alphabet, tables: tables, monkeys: job.monkeys, seed: job.seed,
                            scratch: scratch + carry, symbols: wide + carry)
                        initialized = writer.typeAll(
                            job, into: Self.address(kept), keptCount: keptCount, keptEnds: &keptEnds,
                            stream: &stream, sink: &sink, scanner: &scanner)
                        if let stream { random = stream.random }
                    }
                }
            }
        }
        let kept =
            alphabet.isSingleByte
            ? TypedTexts(bytes: keptBytes, stride: job.monkeys, count: keptCount)
            : TypedTexts(bytes: keptBytes, ends: keptEnds)
        return sink.batch(job: job, kept: kept, random: random)
    }

    private static func address<Element>(_ buffer: UnsafeMutableBufferPointer<Element>) -> UnsafeMutablePointer<Element>
    {
        guard let base = buffer.baseAddress else { preconditionFailure("the buffers are never empty") }
        return base
    }
}
