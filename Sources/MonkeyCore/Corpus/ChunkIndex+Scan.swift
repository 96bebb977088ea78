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
private protocol MatchSink {
    mutating func found(_ chunk: ChunkID)
}

extension Array: MatchSink where Element == ChunkID {
    fileprivate mutating func found(_ chunk: ChunkID) { append(chunk) }
}

private struct EntrySink: MatchSink {
    var matches: [EntryMatch]
    var entry = 0

    mutating func found(_ chunk: ChunkID) { matches.append(EntryMatch(entry: entry, chunk: chunk)) }
}

/// The index's parts as pointers, for the length of a scan.
private struct Probe {
    let weights: UnsafePointer<UInt32>
    /// `ChunkIndex.pairWeights` when scanning bytes and it has them.
    let pairs: UnsafePointer<UInt32>?
    let unitSymbols: UnsafePointer<UInt8>
    let bits: UnsafePointer<UInt64>
    let gramLength: Int
    let stride: Int
    let chunkLength: Int
    let tags: UnsafeBufferPointer<UInt8>
    let heads: UnsafeBufferPointer<UInt32>
    let symbols: UnsafeBufferPointer<UInt8>

    /// Scans one entry's units (bytes or symbols).
    @inline(__always)
    func sweep<Sink: MatchSink>(_ text: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        guard text.count >= chunkLength else { return }
        let units = text.baseAddress.unsafelyUnwrapped
        // The gram length as a constant, so that each sweep's code is unrolled.
        if let pairs {
            switch gramLength {
            case 5: sweep(units, count: text.count, pairs: pairs, gramLength: 5, into: &sink)
            case 6: sweep(units, count: text.count, pairs: pairs, gramLength: 6, into: &sink)
            default: break
            }
            if gramLength >= 5 { return }
        }
        switch gramLength {
        case 1: sweep(units, count: text.count, gramLength: 1, into: &sink)
        case 2: sweep(units, count: text.count, gramLength: 2, into: &sink)
        case 3: sweep(units, count: text.count, gramLength: 3, into: &sink)
        case 4: sweep(units, count: text.count, gramLength: 4, into: &sink)
        case 5: sweep(units, count: text.count, gramLength: 5, into: &sink)
        case 6: sweep(units, count: text.count, gramLength: 6, into: &sink)
        default: sweep(units, count: text.count, gramLength: gramLength, into: &sink)
        }
    }

    /// Scans entries of `entryLength` units one after the other (the last may be shorter).
    func sweep(entries units: UnsafeBufferPointer<UInt8>, entryLength: Int, into sink: inout EntrySink) {
        var start = 0
        while start < units.count {
            let end = min(units.count, start + entryLength)
            sweep(UnsafeBufferPointer(rebasing: units[start..<end]), into: &sink)
            sink.entry += 1
            start = end
        }
    }

    /// The filter's code of the q-gram at `position` (a real q-gram's code
    /// when a unit is no character, see `ChunkIndex.byteWeights`).
    @inline(__always)
    func gram(_ units: UnsafePointer<UInt8>, at position: Int, gramLength: Int) -> Int {
        var code = 0
        for offset in 0..<gramLength {
            code &+= Int(weights[offset &<< 8 | Int(units[position &+ offset])])
        }
        return code
    }

    @inline(__always)
    func isPresent(_ code: Int) -> Bool {
        (bits[code &>> 6] &>> UInt64(code & 63)) & 1 != 0
    }

    /// The first stage: the q-gram at every multiple of the stride. Each
    /// window [p, p + K) holds the q-grams starting at p ... p + K − q,
    /// K − q + 1 = stride of them, exactly one at a multiple of the stride;
    /// if that one is absent, so is the window. With 26 letters at K = 9,
    /// one lookup per 5 characters, and 97 % of them end there.
    @inline(__always)
    func sweep<Sink: MatchSink>(
        _ units: UnsafePointer<UInt8>, count: Int, gramLength: Int, into sink: inout Sink
    ) {
        let last = count - gramLength
        var position = 0
        while position <= last {
            if isPresent(gram(units, at: position, gramLength: gramLength)) {
                examine(units, count: count, sampled: position, into: &sink)
            }
            position &+= stride
        }
    }

    /// As the first stage above, two bytes of a q-gram at a time.
    @inline(__always)
    func sweep<Sink: MatchSink>(
        _ units: UnsafePointer<UInt8>, count: Int, pairs: UnsafePointer<UInt32>, gramLength: Int,
        into sink: inout Sink
    ) {
        let last = count - gramLength
        var position = 0
        while position <= last {
            var code = 0
            for pair in 0..<gramLength / 2 {
                let two = UnsafeRawPointer(units + (position &+ 2 &* pair)).loadUnaligned(as: UInt16.self)
                code &+= Int(pairs[pair &<< 16 | Int(UInt16(littleEndian: two))])
            }
            if gramLength & 1 != 0 {
                code &+= Int(weights[(gramLength &- 1) &<< 8 | Int(units[position &+ gramLength &- 1])])
            }
            if isPresent(code) { examine(units, count: count, sampled: position, into: &sink) }
            position &+= stride
        }
    }

    /// The second stage, for a sampled q-gram that is present. The windows
    /// holding it start at `sampled` − stride + 1 ... `sampled`, and each
    /// can occur only if its stride q-grams, a run that includes the sampled
    /// one, are all present: so the run of present q-grams around it is
    /// grown one q-gram at a time, right then left, only as far as a window
    /// could use, and the windows that fit in it go to the hash table. In
    /// random text the first q-gram tried on each side is absent 97 % of
    /// the time (at K = 9), which ends it after two lookups, not 2·stride − 2.
    @inline(never)
    func examine<Sink: MatchSink>(_ units: UnsafePointer<UInt8>, count: Int, sampled: Int, into sink: inout Sink) {
        // As in `sweep`, the gram length as a constant: a q-gram is then
        // about 12 instructions, not 40 in a loop.
        switch gramLength {
        case 5: examine(units, count: count, sampled: sampled, gramLength: 5, into: &sink)
        case 6: examine(units, count: count, sampled: sampled, gramLength: 6, into: &sink)
        default: examine(units, count: count, sampled: sampled, gramLength: gramLength, into: &sink)
        }
    }

    @inline(__always)
    func examine<Sink: MatchSink>(
        _ units: UnsafePointer<UInt8>, count: Int, sampled: Int, gramLength: Int, into sink: inout Sink
    ) {
        let firstWindow = max(0, sampled - stride + 1)
        let lastWindow = min(sampled, count - chunkLength)
        guard firstWindow <= lastWindow else { return }
        var high = sampled
        let highest = lastWindow + stride - 1
        while high < highest && isPresent(gram(units, at: high + 1, gramLength: gramLength)) { high += 1 }
        let lastPassing = min(lastWindow, high - stride + 1)
        guard firstWindow <= lastPassing else { return }
        var low = sampled
        while low > firstWindow && isPresent(gram(units, at: low - 1, gramLength: gramLength)) { low -= 1 }
        guard low <= lastPassing else { return }
        for window in max(firstWindow, low)...lastPassing {
            if let chunk = find(units + window) { sink.found(chunk) }
        }
    }

    /// The exact lookup of the window at `window`.
    @inline(never)
    func find(_ window: UnsafePointer<UInt8>) -> ChunkID? {
        let unitSymbols = self.unitSymbols
        return ChunkTable.find(chunkLength: chunkLength, tags: tags, heads: heads, symbols: symbols) {
            unitSymbols[Int(window[$0])]
        }
    }
}
