/// Every distinct chunk (window of K characters within one work) of a
/// corpus, built once per corpus, alphabet and chunk length and then only
/// read: typing threads share it to check the windows they type
/// (`scan`, in `ChunkIndex+Scan.swift`), the owner of the coverage follows
/// a chunk to all its occurrences.
///
/// Three parts, cheapest first, because almost no typed window occurs in
/// the corpus (at K = 9 over Shakespeare, 5 in 10 million):
///
/// - **a filter of q-grams**: one bit for each of the k^q strings of q
///   characters, set when it occurs in a work that has windows. q is the
///   largest length up to K whose bitmap fits `filterBudgetBits` (2 MiB);
///   26 letters at K = 9: q = 5, 1.45 MiB, 2.9 % of its bits set, held
///   grouped by the first q − 1 letters in 1.83 MiB (`gramBits`). A window
///   can occur only if all its K − q + 1 q-grams are set. Only every
///   (K − q + 1)-th q-gram of a typed text is looked up at first: each
///   window holds exactly one of those, so when that one is absent, all
///   the windows holding it are too (`scan`);
/// - **a hash table** of the distinct chunks (`ChunkTable`), open
///   addressing with linear probing at a load of at most 0.7: a one-byte
///   tag per slot (zero for empty; seven bits of the hash) and the chunk's
///   first position, verified against the corpus's symbols, so that no
///   key is stored;
/// - **the occurrences**: for each window position of the corpus, the
///   position of the next occurrence of the same chunk (`UInt32.max` after
///   the last), so that a chunk's occurrences are a chain in increasing
///   order from its first position, its `ChunkID`.
///
/// Memory: C bytes of symbols (shared with the `Corpus`), 4·C of chains,
/// 5 bytes per slot (1.43 slots per distinct chunk), the filter and, for a
/// single-byte alphabet and q ≤ 6, 256 KiB per pair of a q-gram's bytes
/// (`pairWeights`): about 38 MB for Shakespeare at K = 9 (C = 3.8 M, 2.8 M
/// distinct chunks).
public struct ChunkIndex: Sendable {
    /// The window length K, 1 to 64.
    public static let chunkLengths = 1...64
    /// The dense filter's largest size: 2^24 bits, 2 MiB, which sets q.
    static let filterBudgetBits = 1 << 24
    /// The grouped filter's, at that q: 2^25 bits, 4 MiB (1.8 MiB for 26 letters at q = 5).
    static let groupedBudgetBits = 1 << 25

    public let corpus: Corpus
    /// K.
    public let chunkLength: Int
    /// The number of windows of all works (a work of n ≥ K characters has n − K + 1).
    public let windowCount: Int
    /// The number of distinct chunks.
    public let distinctChunks: Int

    /// q, the filter's gram length, 1 ... K.
    let gramLength: Int
    /// K − q + 1: every window holds exactly one q-gram at a multiple of it.
    let gramStride: Int
    /// k^q, the number of q-grams: codes are below it.
    let gramCount: Int
    /// Bit c set when the q-gram of code c occurs. Dense: code =
    /// Σ symbolₜ·k^(q−1−t). Grouped (`groupBytes` > 0): the q-grams that
    /// share their first q − 1 symbols (the prefix, of code p) are a group
    /// of 8·`groupBytes` ≥ k bits, code = p·8·groupBytes + the last symbol:
    /// a lookup loads the 64 bits at byte p·groupBytes and tests the last
    /// symbol's bit, without the shift and mask of a code split into word
    /// and bit, which saves about four instructions of a sample's fifteen.
    let gramBits: [UInt64]
    /// The bytes of a group of the grouped filter, ⌈k/8⌉; 0 for the dense
    /// one. Grouped when k ≤ 64 (a group within one 64-bit load) and its
    /// bitmap fits `groupedBudgetBits`: always for 8 ≤ k ≤ 64, since a
    /// group wastes fewer than 8 ≤ k bits and q fits the dense budget.
    let groupBytes: Int
    /// `gramLength` tables of 256: a byte's (or symbol's) part of a gram's
    /// code at each offset, 0 for one that is no character. Such a unit
    /// makes its q-grams' codes those of real ones (as if it were the first
    /// symbol), which can only let more windows through the filter: the hash
    /// table compares symbols, and a unit that is no character matches none.
    /// So no code needs clamping on the hot path. Grouped, the first q − 1
    /// tables give the prefix's byte offset, p·groupBytes, and the last the
    /// symbol, the bit in the group.
    let byteWeights: [UInt32]
    let symbolWeights: [UInt32]
    /// For a single-byte alphabet and q ≤ 6: a table of 65,536 for each
    /// pair of offsets 2j, 2j + 1 (⌊q/2⌋ dense, ⌊(q − 1)/2⌋ of the grouped
    /// prefix), the sum of the two bytes' `byteWeights`, indexed by them
    /// read as one little-endian UInt16: a sample costs three loads of
    /// weights, not five. Typed letters touch only a few KiB of them.
    let pairWeights: [UInt32]
    /// Byte to symbol for single-byte alphabets (`CorpusAlphabet.byteSymbols`), and symbol to itself.
    let byteSymbols: [UInt8]
    let identitySymbols: [UInt8]
    let tags: [UInt8]
    let heads: [UInt32]
    /// By corpus position of a window: the next occurrence of its chunk.
    let nextOccurrence: [UInt32]

    /// `nextOccurrence` of a chunk's last occurrence.
    static let noOccurrence = UInt32.max

    /// Builds the index of `corpus`'s chunks of `chunkLength` characters
    /// (which must be within `chunkLengths`). O(C) time, a quarter of a
    /// second for Shakespeare.
    public init(corpus: Corpus, chunkLength: Int) {
        precondition(Self.chunkLengths.contains(chunkLength), "a chunk length of 1 to 64")
        self.corpus = corpus
        self.chunkLength = chunkLength
        let k = corpus.alphabet.count
        var gramLength = 1
        var absent = k
        while gramLength < chunkLength {
            let (longer, overflow) = absent.multipliedReportingOverflow(by: k)
            guard !overflow, longer <= Self.filterBudgetBits else { break }
            gramLength += 1
            absent = longer
        }
        self.gramLength = gramLength
        gramStride = chunkLength - gramLength + 1
        gramCount = absent
        groupBytes = Self.groupBytes(alphabetCount: k, gramLength: gramLength)
        (byteWeights, symbolWeights) = Self.weights(
            alphabet: corpus.alphabet, gramLength: gramLength, groupBytes: groupBytes)
        pairWeights =
            corpus.alphabet.isSingleByte && gramLength <= 6
            ? Self.pairs(of: byteWeights, count: (groupBytes > 0 ? gramLength - 1 : gramLength) / 2) : []
        byteSymbols = corpus.alphabet.byteSymbols
        identitySymbols = (0...255).map { UInt8($0) }
        let windowWorks = corpus.works.filter { $0.count >= chunkLength }
        windowCount = windowWorks.reduce(0) { $0 + $1.count - chunkLength + 1 }
        gramBits = Self.grams(
            of: corpus, in: windowWorks, gramLength: gramLength, absent: absent, groupBytes: groupBytes)
        var table = ChunkTable(chunkLength: chunkLength, chunks: windowCount)
        var next = [UInt32](repeating: Self.noOccurrence, count: corpus.characterCount)
        corpus.symbols.withUnsafeBufferPointer { symbols in
            next.withUnsafeMutableBufferPointer { next in
                // Backwards, so that each chunk's chain is in increasing
                // order and its head, at the end, is its first occurrence.
                for work in windowWorks.reversed() {
                    for position in stride(from: work.start + work.count - chunkLength, through: work.start, by: -1) {
                        next[position] = table.insert(position: UInt32(position), symbols: symbols)
                    }
                }
            }
            table.shrink(symbols: symbols)
        }
        distinctChunks = table.count
        tags = table.tags
        heads = table.heads
        nextOccurrence = next
    }

    /// `groupBytes`: ⌈k/8⌉ when the grouped filter can be had, else 0.
    private static func groupBytes(alphabetCount k: Int, gramLength: Int) -> Int {
        guard k <= 64 else { return 0 }
        let bytes = (k + 7) / 8
        var bits = bytes * 8
        for _ in 1..<gramLength {
            bits *= k
            if bits > groupedBudgetBits { return 0 }
        }
        return bytes
    }

    /// The weight tables: at offset t of a gram, unit u weighs symbol(u)·k^(q−1−t)
    /// (dense), or symbol(u)·k^(q−2−t)·groupBytes and, at the last offset,
    /// symbol(u) (grouped); 0 when u is no character.
    private static func weights(alphabet: CorpusAlphabet, gramLength: Int, groupBytes: Int) -> ([UInt32], [UInt32]) {
        let k = alphabet.count
        var bytes = [UInt32](repeating: 0, count: gramLength * 256)
        var symbols = [UInt32](repeating: 0, count: gramLength * 256)
        var power = 1
        for offset in stride(from: gramLength - 1, through: 0, by: -1) {
            for symbol in 0..<k { symbols[offset << 8 | symbol] = UInt32(symbol * power) }
            if alphabet.isSingleByte {
                for byte in 0..<256 where alphabet.byteSymbols[byte] != CorpusAlphabet.noSymbol {
                    bytes[offset << 8 | byte] = UInt32(Int(alphabet.byteSymbols[byte]) * power)
                }
            }
            // Grouped, the last symbol is the bit and the prefix counts in groups' bytes.
            power = groupBytes > 0 && offset == gramLength - 1 ? groupBytes : power * k
        }
        return (bytes, symbols)
    }

    /// `count` tables of pairs of `weights`, for offsets 2j, 2j + 1.
    private static func pairs(of weights: [UInt32], count: Int) -> [UInt32] {
        var pairs = [UInt32](repeating: 0, count: count << 16)
        for pair in 0..<count {
            for second in 0..<256 {
                for first in 0..<256 {
                    pairs[pair << 16 | second << 8 | first] =
                        weights[(2 * pair) << 8 | first] + weights[(2 * pair + 1) << 8 | second]
                }
            }
        }
        return pairs
    }

    /// The filter: the bit of every q-gram of the works that have windows.
    private static func grams(
        of corpus: Corpus, in works: [Corpus.Work], gramLength: Int, absent: Int, groupBytes: Int
    ) -> [UInt64] {
        let k = corpus.alphabet.count
        // Grouped: k^(q−1) groups, and a word more for the last group's 64-bit load.
        let groups = groupBytes > 0 ? absent / k * groupBytes * 8 : absent
        var bits = [UInt64](repeating: 0, count: groups / 64 + 2)
        var leading = 1
        for _ in 1..<gramLength { leading *= k }
        corpus.symbols.withUnsafeBufferPointer { symbols in
            for work in works {
                var code = 0
                for position in work.range {
                    // A rolling code: drop the leading symbol, shift, add the next.
                    if position - work.start >= gramLength {
                        code -= Int(symbols[position - gramLength]) * leading
                    }
                    code = code * k + Int(symbols[position])
                    if position - work.start >= gramLength - 1 {
                        let bit = groupBytes > 0 ? code / k * groupBytes * 8 + code % k : code
                        bits[bit >> 6] |= 1 << UInt64(bit & 63)
                    }
                }
            }
        }
        return bits
    }

    /// The chunk whose characters are `symbols`, if the corpus has it.
    public func chunk(of symbols: [UInt8]) -> ChunkID? {
        guard symbols.count == chunkLength else { return nil }
        return corpus.symbols.withUnsafeBufferPointer { corpusSymbols in
            tags.withUnsafeBufferPointer { tags in
                heads.withUnsafeBufferPointer { heads in
                    ChunkTable.find(
                        chunkLength: chunkLength, tags: tags, heads: heads, symbols: corpusSymbols
                    ) { symbols[$0] }
                }
            }
        }
    }

    /// Calls `body` with each position where `chunk` occurs, in increasing order.
    public func forEachOccurrence(of chunk: ChunkID, _ body: (Int) -> Void) {
        nextOccurrence.withUnsafeBufferPointer { next in
            var position = chunk.firstPosition
            while position != Self.noOccurrence {
                body(Int(position))
                position = next[Int(position)]
            }
        }
    }

    /// The positions where `chunk` occurs, in increasing order.
    public func occurrences(of chunk: ChunkID) -> [Int] {
        var positions: [Int] = []
        forEachOccurrence(of: chunk) { positions.append($0) }
        return positions
    }

    /// The filter's size in bytes, and the whole index's (without the corpus's symbols).
    public var filterBytes: Int { gramBits.count * 8 }
    public var memoryBytes: Int {
        filterBytes + tags.count + heads.count * 4 + nextOccurrence.count * 4
            + (byteWeights.count + symbolWeights.count + pairWeights.count) * 4
    }
}
