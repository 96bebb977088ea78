/// The loop over a batch's entries: types each text where it belongs (the
/// kept buffer, or scratch for an entry older than `keep`), searches it for
/// the target, lends it to the scanner, and tells the `BatchSink` what it
/// found. Works on the pointers the `Typist` lends for one batch.
struct TextWriter {
    /// The alphabet's k and kind, not the alphabet: a writer is made at
    /// every tick, and holding the alphabet retained and released it.
    private let characterCount: Int
    private let isSingleByte: Bool
    private let tables: AlphabetTables
    private let monkeys: Int
    private let seed: TypingSeed?
    /// Room for one text that is not kept, and `Typist.slack` bytes.
    private let scratch: UnsafeMutablePointer<UInt8>
    /// Room for one text's symbols (multi-byte alphabets).
    private let symbols: UnsafeMutablePointer<UInt16>

    init(
        alphabet: TypingAlphabet, tables: AlphabetTables, monkeys: Int, seed: TypingSeed?,
        scratch: UnsafeMutablePointer<UInt8>, symbols: UnsafeMutablePointer<UInt16>
    ) {
        self.characterCount = alphabet.count
        self.isSingleByte = alphabet.isSingleByte
        self.tables = tables
        self.monkeys = monkeys
        self.seed = seed
        self.scratch = scratch
        self.symbols = symbols
    }

    /// Types every entry of the job; answers the bytes written to `kept`.
    mutating func typeAll<Scanner: TypedTextScanner>(
        _ job: TypingJob, into kept: UnsafeMutablePointer<UInt8>, keptCount: Int, keptEnds: inout [Int],
        stream: inout CharacterStream?, sink: inout BatchSink, scanner: inout Scanner
    ) -> Int {
        let firstKept = job.count - keptCount
        var keptEnd = 0
        var search = TargetSearch(job.target)
        var best = job.bestLength
        for index in 0..<job.count {
            let id = job.firstID &+ UInt64(index)
            let isKept = index >= firstKept
            let output = isKept ? kept + keptEnd : scratch
            let count = type(id, into: output, stream: &stream)
            let text = UnsafeBufferPointer(start: output, count: count)
            let before = best
            let isHit = search.search(text, best: &best)
            if best > before { sink.improved(id, to: best) }
            if isHit { sink.hit(id, text: text, isKept: isKept) }
            scanner.scan(
                TypedText(
                    id: id, bytes: text,
                    symbols: UnsafeBufferPointer(start: symbols, count: isSingleByte ? 0 : monkeys)))
            if isKept {
                keptEnd += count
                if !isSingleByte { keptEnds.append(keptEnd) }
            }
        }
        sink.bestLength = best
        return keptEnd
    }

    /// The text of entry `id` at `output`, which has room for
    /// `Typist.slack` bytes more; answers its length in bytes.
    @inline(__always)
    func type(_ id: UInt64, into output: UnsafeMutablePointer<UInt8>, stream: inout CharacterStream?) -> Int {
        guard isSingleByte else {
            typeSymbols(id, stream: &stream)
            return expandSymbols(into: output)
        }
        typeBytes(id, into: output, stream: &stream)
        return monkeys
    }

    /// A single-byte alphabet's text of entry `id`.
    @inline(__always)
    private func typeBytes(_ id: UInt64, into output: UnsafeMutablePointer<UInt8>, stream: inout CharacterStream?) {
        if characterCount == 1 {
            // Every draw gives index 0: the text is known without one.
            output.update(repeating: UInt8(truncatingIfNeeded: tables.symbolUTF8[0]), count: monkeys)
        } else if let seed {
            var random = seed.generator(forEntry: id)
            let bound = UInt64(characterCount)
            let characters = tables.symbolUTF8
            for place in 0..<monkeys {
                output[place] = UInt8(
                    truncatingIfNeeded: characters[Int(truncatingIfNeeded: random.next(below: bound))])
            }
        } else {
            stream?.fillBytes(output, count: monkeys)
        }
    }

    /// The symbols of entry `id`, into `symbols`.
    @inline(__always)
    private func typeSymbols(_ id: UInt64, stream: inout CharacterStream?) {
        if characterCount == 1 {
            symbols.update(repeating: 0, count: monkeys)
        } else if let seed {
            var random = seed.generator(forEntry: id)
            let bound = UInt64(characterCount)
            for place in 0..<monkeys {
                symbols[place] = UInt16(truncatingIfNeeded: random.next(below: bound))
            }
        } else {
            stream?.fillSymbols(symbols, count: monkeys)
        }
    }

    /// The UTF-8 of `symbols` at `output`; answers its length. Each
    /// character is stored as a 4-byte word, so `output` has room for 3 more.
    @inline(__always)
    private func expandSymbols(into output: UnsafeMutablePointer<UInt8>) -> Int {
        let raw = UnsafeMutableRawPointer(output)
        var written = 0
        for place in 0..<monkeys {
            let symbol = Int(symbols[place])
            raw.storeBytes(of: tables.symbolUTF8[symbol].littleEndian, toByteOffset: written, as: UInt32.self)
            written += Int(tables.symbolLengths[symbol])
        }
        return written
    }
}
