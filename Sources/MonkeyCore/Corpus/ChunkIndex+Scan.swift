/// Checking typed text against the corpus: the hot path of a corpus
/// session, run by the typing threads on each entry they type.
extension ChunkIndex {
    /// Appends to `matches` the chunk of every window of `text` (an entry's
    /// UTF-8 bytes) that occurs in the corpus, once per window: an entry of
    /// N characters has N − K + 1 windows, none when N < K. Nothing is
    /// allocated but `matches`' growth, which the caller keeps from entry
    /// to entry (`removeAll(keepingCapacity: true)`). Bytes that are no
    /// character of the alphabet are allowed and never part of a match.
    ///
    /// The order of the matches is not the order of the windows.
    public func scan(_ text: UnsafeBufferPointer<UInt8>, into matches: inout [ChunkID]) {
        if corpus.alphabet.isSingleByte {
            scan(units: text, weights: byteWeights, unitSymbols: byteSymbols, into: &matches)
        } else {
            scanDecoding(text, into: &matches)
        }
    }

    /// As `scan(_:into:)`, for text given as symbols (indices in the
    /// alphabet); a value that is no symbol is never part of a match.
    public func scan(symbols: UnsafeBufferPointer<UInt8>, into matches: inout [ChunkID]) {
        scan(units: symbols, weights: symbolWeights, unitSymbols: identitySymbols, into: &matches)
    }

    /// Multi-byte alphabets: the text decoded into symbols a block at a
    /// time, on the stack, each block starting with the last K − 1
    /// symbols of the one before so that no window is lost or seen twice.
    /// A character that is not in the alphabet ends a run of symbols: no
    /// window holds it.
    private func scanDecoding(_ text: UnsafeBufferPointer<UInt8>, into matches: inout [ChunkID]) {
        let capacity = 4096
        let alphabet = corpus.alphabet
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { block in
            var filled = 0
            var index = 0
            func flush() {
                scan(symbols: UnsafeBufferPointer(rebasing: block[..<filled]), into: &matches)
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

    private func scan(
        units: UnsafeBufferPointer<UInt8>, weights: [UInt32], unitSymbols: [UInt8], into matches: inout [ChunkID]
    ) {
        guard units.count >= chunkLength, distinctChunks > 0 else { return }
        weights.withUnsafeBufferPointer { weights in
            unitSymbols.withUnsafeBufferPointer { unitSymbols in
                gramBits.withUnsafeBufferPointer { bits in
                    tags.withUnsafeBufferPointer { tags in
                        heads.withUnsafeBufferPointer { heads in
                            corpus.symbols.withUnsafeBufferPointer { symbols in
                                let probe = Probe(
                                    units: units.baseAddress.unsafelyUnwrapped, count: units.count,
                                    weights: weights.baseAddress.unsafelyUnwrapped,
                                    unitSymbols: unitSymbols.baseAddress.unsafelyUnwrapped,
                                    bits: bits.baseAddress.unsafelyUnwrapped, absent: absentGram, stride: gramStride,
                                    chunkLength: chunkLength, tags: tags, heads: heads, symbols: symbols)
                                // The gram length as a constant, so that each sweep's code is unrolled.
                                switch gramLength {
                                case 1: probe.sweep(gramLength: 1, into: &matches)
                                case 2: probe.sweep(gramLength: 2, into: &matches)
                                case 3: probe.sweep(gramLength: 3, into: &matches)
                                case 4: probe.sweep(gramLength: 4, into: &matches)
                                case 5: probe.sweep(gramLength: 5, into: &matches)
                                case 6: probe.sweep(gramLength: 6, into: &matches)
                                default: probe.sweep(gramLength: gramLength, into: &matches)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What one scan reads, as pointers for the length of the scan: the text
/// (bytes or symbols, `units`) and the index's parts.
private struct Probe {
    let units: UnsafePointer<UInt8>
    let count: Int
    let weights: UnsafePointer<UInt32>
    let unitSymbols: UnsafePointer<UInt8>
    let bits: UnsafePointer<UInt64>
    let absent: Int
    let stride: Int
    let chunkLength: Int
    let tags: UnsafeBufferPointer<UInt8>
    let heads: UnsafeBufferPointer<UInt32>
    let symbols: UnsafeBufferPointer<UInt8>

    /// The filter's code of the q-gram at `position`: at least `absent`
    /// (clamped to it) when a unit is no character.
    @inline(__always)
    func gram(at position: Int, gramLength: Int) -> Int {
        var code = 0
        for offset in 0..<gramLength {
            code &+= Int(weights[offset &<< 8 | Int(units[position &+ offset])])
        }
        return min(code, absent)
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
    func sweep(gramLength: Int, into matches: inout [ChunkID]) {
        let last = count - gramLength
        var position = 0
        while position <= last {
            if isPresent(gram(at: position, gramLength: gramLength)) {
                examine(sampled: position, gramLength: gramLength, into: &matches)
            }
            position &+= stride
        }
    }

    /// The second stage, for a sampled q-gram that is present: the windows
    /// that hold it (those starting at `sampled` − stride + 1 ... `sampled`)
    /// whose q-grams are all present go to the hash table.
    @inline(never)
    func examine(sampled: Int, gramLength: Int, into matches: inout [ChunkID]) {
        let firstWindow = max(0, sampled - stride + 1)
        let lastWindow = min(sampled, count - chunkLength)
        guard firstWindow <= lastWindow else { return }
        var run = 0
        var position = firstWindow
        let lastGram = lastWindow + stride - 1
        while position <= lastGram {
            if position == sampled || isPresent(gram(at: position, gramLength: gramLength)) {
                run += 1
                if run >= stride, let chunk = find(window: position - stride + 1) { matches.append(chunk) }
            } else {
                run = 0
            }
            position += 1
        }
    }

    /// The exact lookup of the window starting at `start`.
    @inline(never)
    func find(window start: Int) -> ChunkID? {
        let window = units + start
        let unitSymbols = self.unitSymbols
        return ChunkTable.find(chunkLength: chunkLength, tags: tags, heads: heads, symbols: symbols) {
            unitSymbols[Int(window[$0])]
        }
    }
}
