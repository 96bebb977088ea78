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
        let textBytes = reserveScratch(monkeys: job.monkeys, alphabet: alphabet)
        let keptCount = min(job.keep, job.count)
        var sink = BatchSink(job: job)
        var random = job.random
        var keptEnds: [Int] = []
        if !alphabet.isSingleByte { keptEnds.reserveCapacity(keptCount) }
        let keptBytes = withWriter(monkeys: job.monkeys, alphabet: alphabet, seed: job.seed, random: &random) {
            writer, stream, _ in
            [UInt8](unsafeUninitializedCapacity: keptCount * textBytes + Self.slack) { kept, initialized in
                initialized = writer.typeAll(
                    job, into: Self.address(kept), keptCount: keptCount, keptEnds: &keptEnds,
                    stream: &stream, sink: &sink, scanner: &scanner)
            }
        }
        let kept =
            alphabet.isSingleByte
            ? TypedTexts(bytes: keptBytes, stride: job.monkeys, count: keptCount)
            : TypedTexts(bytes: keptBytes, ends: keptEnds)
        return sink.batch(job: job, kept: kept, random: random)
    }

    /// Types entry `id` of a timed session's tick: the text, hit and best
    /// progress (from `best`, moved on) and random state after that a job
    /// of that one entry, kept, gives, without a batch's set-up (no kept
    /// buffer, sink or job): at 10 Hz for thousands of sessions the set-up
    /// was most of a tick's cost. The text is typed into scratch and
    /// searched for `target` (nil: the session has none), then lent to
    /// `body` in UTF-8 where it was typed (valid only during the call), with
    /// whether it is a hit: a tick whose entry nobody reads as text at once
    /// needs no `String` of it.
    public mutating func typeEntry<Result>(
        _ id: UInt64, monkeys: Int, alphabet: TypingAlphabet, target: TypingTarget?, seed: TypingSeed?,
        best: inout Int, random: inout WyRand, _ body: (_ text: UnsafeBufferPointer<UInt8>, _ isHit: Bool) -> Result
    ) -> Result {
        _ = reserveScratch(monkeys: monkeys, alphabet: alphabet)
        return withWriter(monkeys: monkeys, alphabet: alphabet, seed: seed, random: &random) {
            writer, stream, scratch in
            let text = UnsafeBufferPointer(start: scratch, count: writer.type(id, into: scratch, stream: &stream))
            var isHit = false
            if let target {
                var search = TargetSearch(target)
                isHit = search.search(text, best: &best)
            }
            return body(text, isHit)
        }
    }

    /// Calls `body` with a writer and a character stream over the scratch
    /// (`reserveScratch` made room), and the text's place in it, the one
    /// set-up of a batch and of a tick's entry; `random` moves on to where
    /// the stream left it.
    private mutating func withWriter<Result>(
        monkeys: Int, alphabet: TypingAlphabet, seed: TypingSeed?, random: inout WyRand,
        _ body: (inout TextWriter, inout CharacterStream?, UnsafeMutablePointer<UInt8>) -> Result
    ) -> Result {
        let carry = CharacterStream.carryCapacity
        let start = random
        var after = random
        let result = alphabet.withTables { tables in
            bytes.withUnsafeMutableBufferPointer { bytes in
                symbols.withUnsafeMutableBufferPointer { symbols in
                    let scratch = Self.address(bytes)
                    let wide = Self.address(symbols)
                    var stream = alphabet.groupDigits.map {
                        CharacterStream(
                            random: start, digits: $0, groupSize: alphabet.groupSize,
                            groupBytes: tables.groupBytes, carryBytes: scratch, carrySymbols: wide)
                    }
                    var writer = TextWriter(
                        alphabet: alphabet, tables: tables, monkeys: monkeys, seed: seed,
                        scratch: scratch + carry, symbols: wide + carry)
                    let result = body(&writer, &stream, scratch + carry)
                    if let stream { after = stream.random }
                    return result
                }
            }
        }
        random = after
        return result
    }

    /// Makes room in scratch for one text of `monkeys` characters after
    /// the carry; answers the text's most bytes.
    @inline(__always)
    private mutating func reserveScratch(monkeys: Int, alphabet: TypingAlphabet) -> Int {
        let textBytes = monkeys * (alphabet.isSingleByte ? 1 : alphabet.widestSymbol)
        let carry = CharacterStream.carryCapacity
        let symbolCount = alphabet.isSingleByte ? 0 : monkeys
        // Inlined into every tick, the growing out of line: as a call of
        // its own, it cost a tick 26 instructions.
        if bytes.count < carry + textBytes + Self.slack || symbols.count < carry + symbolCount {
            growScratch(bytes: carry + textBytes + Self.slack, symbols: carry + symbolCount)
        }
        return textBytes
    }

    @inline(never)
    private mutating func growScratch(bytes byteCount: Int, symbols symbolCount: Int) {
        if bytes.count < byteCount { bytes = [UInt8](repeating: 0, count: byteCount) }
        if symbols.count < symbolCount { symbols = [UInt16](repeating: 0, count: symbolCount) }
    }

    private static func address<Element>(_ buffer: UnsafeMutableBufferPointer<Element>) -> UnsafeMutablePointer<Element>
    {
        guard let base = buffer.baseAddress else { preconditionFailure("the buffers are never empty") }
        return base
    }
}
