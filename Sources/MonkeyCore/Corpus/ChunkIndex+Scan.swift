/// Checking typed text against the corpus: the hot path of a corpus
/// session, run by the typing threads on the entries they type.
extension ChunkIndex {
    /// Appends to `matches` the chunk of every window of `text` (one
    /// entry's UTF-8 bytes) that occurs in the corpus, once per window: an
    /// entry of N characters has N − K + 1 windows, none when N < K.
    /// Nothing is allocated but `matches`' growth, which the caller keeps
    /// from entry to entry (`removeAll(keepingCapacity: true)`). Bytes that
    /// are no character of the alphabet are allowed and never part of a
    /// match. The order of the matches is not the order of the windows.
    public func scan(_ text: UnsafeBufferPointer<UInt8>, into matches: inout [ChunkID]) {
        if corpus.alphabet.isSingleByte {
            withProbe(bytes: true) { $0.sweep(text, into: &matches) }
        } else {
            scanDecoding(text, into: &matches)
        }
    }

    /// As `scan(_:into:)`, for one entry given as symbols (indices in the
    /// alphabet); a value that is no symbol is never part of a match.
    public func scan(symbols: UnsafeBufferPointer<UInt8>, into matches: inout [ChunkID]) {
        withProbe(bytes: false) { $0.sweep(symbols, into: &matches) }
    }

    /// As `scan(_:into:)` for many entries at once, which saves the cost of
    /// a call per entry (about 25 ns, as much as 20 windows): `text` holds
    /// entries one after the other, each of `entryLength` characters
    /// (UTF-8; the last may be shorter), and each match says which entry,
    /// counted from 0, holds the window. Windows never span two entries.
    public func scan(entries text: UnsafeBufferPointer<UInt8>, entryLength: Int, into matches: inout [EntryMatch]) {
        precondition(entryLength > 0, "entries of at least one character")
        var sink = EntrySink(matches: matches)
        matches = []
        if corpus.alphabet.isSingleByte {
            withProbe(bytes: true) { $0.sweep(entries: text, entryLength: entryLength, into: &sink) }
        } else {
            var start = 0
            while start < text.count {
                var end = start
                for _ in 0..<entryLength where end < text.count { _ = UTF8Text.decode(text, at: &end) }
                scanDecoding(UnsafeBufferPointer(rebasing: text[start..<end]), into: &sink)
                sink.entry += 1
                start = end
            }
        }
        matches = sink.matches
    }

    /// As `scan(entries:entryLength:into:)`, for entries given as symbols.
    public func scan(
        entrySymbols symbols: UnsafeBufferPointer<UInt8>, entryLength: Int, into matches: inout [EntryMatch]
    ) {
        precondition(entryLength > 0, "entries of at least one character")
        var sink = EntrySink(matches: matches)
        matches = []
        withProbe(bytes: false) { $0.sweep(entries: symbols, entryLength: entryLength, into: &sink) }
        matches = sink.matches
    }

    /// Multi-byte alphabets: the text decoded into symbols a block at a
    /// time, on the stack, each block starting with the last K − 1
    /// symbols of the one before so that no window is lost or seen twice.
    /// A character that is not in the alphabet ends a run of symbols: no
    /// window holds it.
    private func scanDecoding<Sink: MatchSink>(_ text: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        let capacity = 4096
        let alphabet = corpus.alphabet
        withProbe(bytes: false) { probe in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { block in
                var filled = 0
                var index = 0
                func flush() {
                    probe.sweep(UnsafeBufferPointer(rebasing: block[..<filled]), into: &sink)
                }
                while index < text.count {
                    let value = UTF8Text.decode(text, at: &index)
                    guard let scalar = Unicode.Scalar(value), let symbol = alphabet.symbol(of: scalar) else {
                        flush()
                        filled = 0
                        continue
                    }
                    if filled == capacity {
                        flush()
                        let kept = chunkLength - 1
                        for offset in 0..<kept { block[offset] = block[capacity - kept + offset] }
                        filled = kept
                    }
                    block[filled] = symbol
                    filled += 1
                }
                flush()
            }
        }
    }

    /// Calls `body` with the index's parts as pointers, for bytes of a
    /// single-byte alphabet or for symbols.
    private func withProbe(bytes: Bool, _ body: (Probe) -> Void) {
        guard distinctChunks > 0 else { return }
        let pairs = bytes ? pairWeights : []
        (bytes ? byteWeights : symbolWeights).withUnsafeBufferPointer { weights in
            (bytes ? byteSymbols : identitySymbols).withUnsafeBufferPointer { unitSymbols in
                gramBits.withUnsafeBufferPointer { bits in
                    tags.withUnsafeBufferPointer { tags in
                        heads.withUnsafeBufferPointer { heads in
                            corpus.symbols.withUnsafeBufferPointer { symbols in
                                pairs.withUnsafeBufferPointer { pairs in
                                    body(
                                        Probe(
                                            weights: weights.baseAddress.unsafelyUnwrapped,
                                            pairs: pairs.isEmpty ? nil : pairs.baseAddress,
                                            unitSymbols: unitSymbols.baseAddress.unsafelyUnwrapped,
                                            bits: bits.baseAddress.unsafelyUnwrapped, gramLength: gramLength,
                                            groupBytes: groupBytes,
                                            stride: gramStride, chunkLength: chunkLength, tags: tags,
                                            heads: heads, symbols: symbols))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A window of an entry of a batch that occurs in the corpus.
public struct EntryMatch: Sendable, Hashable {
    /// The entry's place in the batch, from 0.
    public let entry: Int
    public let chunk: ChunkID

    public init(entry: Int, chunk: ChunkID) {
        self.entry = entry
        self.chunk = chunk
    }
}

/// Where a scan puts what it finds.
protocol MatchSink {
    mutating func found(_ chunk: ChunkID)
}

extension Array: MatchSink where Element == ChunkID {
    mutating func found(_ chunk: ChunkID) { append(chunk) }
}

struct EntrySink: MatchSink {
    var matches: [EntryMatch]
    var entry = 0

    mutating func found(_ chunk: ChunkID) { matches.append(EntryMatch(entry: entry, chunk: chunk)) }
}
