internal import CPrefetch

/// The index's parts as pointers, for the length of a scan
/// (`ChunkIndex.withProbe`): the two stages of checking typed text.
struct Probe {
    let weights: UnsafePointer<UInt32>
    /// `ChunkIndex.pairWeights` when scanning bytes and it has them.
    let pairs: UnsafePointer<UInt32>?
    let unitSymbols: UnsafePointer<UInt8>
    let bits: UnsafePointer<UInt64>
    let gramLength: Int
    /// `ChunkIndex.groupBytes`: > 0 for the grouped filter.
    let groupBytes: Int
    let stride: Int
    let chunkLength: Int
    let tags: UnsafeBufferPointer<UInt8>
    let heads: UnsafeBufferPointer<UInt32>
    let symbols: UnsafeBufferPointer<UInt8>

    /// Samples looked up before the present ones among them are examined:
    /// keeping the second stage out of the first's loop leaves that loop
    /// without a call, so its pointers stay in registers.
    static let block = 128

    /// Scans one entry's units (bytes or symbols).
    @inline(__always)
    func sweep<Sink: MatchSink>(_ text: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        guard text.count >= chunkLength else { return }
        let units = text.baseAddress.unsafelyUnwrapped
        // The gram length as a constant, so that each sweep's code is unrolled.
        if groupBytes > 0 {
            switch gramLength {
            case 5 where pairs != nil: sweep(units, count: text.count, GroupedPairs5.self, into: &sink)
            case 6 where pairs != nil: sweep(units, count: text.count, GroupedPairs6.self, into: &sink)
            case 4: sweep(units, count: text.count, GroupedUnits4.self, into: &sink)
            case 5: sweep(units, count: text.count, GroupedUnits5.self, into: &sink)
            default: sweep(units, count: text.count, GroupedUnitsOfAnyLength.self, into: &sink)
            }
            return
        }
        switch gramLength {
        case 1: sweep(units, count: text.count, Units1.self, into: &sink)
        case 2: sweep(units, count: text.count, Units2.self, into: &sink)
        case 3: sweep(units, count: text.count, Units3.self, into: &sink)
        case 4: sweep(units, count: text.count, Units4.self, into: &sink)
        case 5: sweep(units, count: text.count, Units5.self, into: &sink)
        case 6: sweep(units, count: text.count, Units6.self, into: &sink)
        default: sweep(units, count: text.count, UnitsOfAnyLength.self, into: &sink)
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

    /// Whether the filter has the q-gram at `position`.
    @inline(__always)
    func isPresent<Shape: GramShape>(_ units: UnsafePointer<UInt8>, at position: Int, _: Shape.Type) -> Bool {
        isSet(probe(units, at: position, Shape.self))
    }

    /// Where the filter keeps the q-gram at `position`: the byte offset of
    /// the 64 bits that hold its bit, times 64, plus the bit. Its code (a
    /// real q-gram's when a unit is no character, see
    /// `ChunkIndex.byteWeights`) is summed two bytes at a time when
    /// `Shape.paired` (one UInt16 load, `pairWeights`), else a unit at a
    /// time; grouped, the sum is the prefix's byte offset and the last
    /// unit the bit.
    @inline(__always)
    func probe<Shape: GramShape>(_ units: UnsafePointer<UInt8>, at position: Int, _: Shape.Type) -> Int {
        let gramLength = length(Shape.self)
        let summed = Shape.grouped ? gramLength &- 1 : gramLength
        var code = 0
        if Shape.paired {
            let pairs = self.pairs.unsafelyUnwrapped
            for pair in 0..<summed / 2 {
                let two = UnsafeRawPointer(units + (position &+ 2 &* pair)).loadUnaligned(as: UInt16.self)
                code &+= Int(pairs[pair &<< 16 | Int(UInt16(littleEndian: two))])
            }
            if summed & 1 != 0 {
                code &+= Int(weights[(summed &- 1) &<< 8 | Int(units[position &+ summed &- 1])])
            }
        } else {
            for offset in 0..<summed {
                code &+= Int(weights[offset &<< 8 | Int(units[position &+ offset])])
            }
        }
        guard Shape.grouped else { return (code &>> 6) &<< 9 | code & 63 }
        let bit = weights[(gramLength &- 1) &<< 8 | Int(units[position &+ gramLength &- 1])]
        return code &<< 6 | Int(bit)
    }

    /// The filter's 64 bits at a probe's byte offset.
    @inline(__always)
    func group(_ probe: Int) -> UnsafeRawPointer { UnsafeRawPointer(bits) + probe &>> 6 }

    /// Whether the bit a probe names is set.
    @inline(__always)
    func isSet(_ probe: Int) -> Bool {
        // The bitmap's words are little-endian, as on every target Swift runs monkeyd on.
        let bits = group(probe).loadUnaligned(as: UInt64.self)
        return (bits &>> UInt64(probe & 63)) & 1 != 0
    }

    /// q: the shape's, or the index's when the shape leaves it open.
    @inline(__always)
    func length<Shape: GramShape>(_: Shape.Type) -> Int { Shape.length == 0 ? gramLength : Shape.length }

    /// The first stage: the q-gram at every multiple of the stride. Each
    /// window [p, p + K) holds the q-grams starting at p ... p + K − q,
    /// K − q + 1 = stride of them, exactly one at a multiple of the stride;
    /// if that one is absent, so is the window. With 26 letters at K = 9,
    /// one lookup per 5 characters, and 97 % of them end there. The present
    /// ones of a block of samples are noted on the stack and examined after it.
    @inline(__always)
    func sweep<Shape: GramShape, Sink: MatchSink>(
        _ units: UnsafePointer<UInt8>, count: Int, _: Shape.Type, into sink: inout Sink
    ) {
        let samples = (count &- length(Shape.self)) / stride &+ 1
        withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.block) { present in
            let present = present.baseAddress.unsafelyUnwrapped
            var sample = 0
            while sample < samples {
                let block = min(Self.block, samples &- sample)
                let found = lookUp(
                    units, from: sample &* stride, samples: block, Shape.self,
                    into: present)
                for index in 0..<found {
                    examine(
                        units, count: count, sampled: present[index], Shape.self,
                        into: &sink)
                }
                sample &+= block
            }
        }
    }

    /// `samples` samples from `start` on: the positions of the present
    /// ones go to `present`, in order, and their number is returned. Two
    /// passes: the first works out where each sample's bit lies and asks
    /// the processor for that memory, the second tests the bits. The
    /// filter (1.8 MiB for 26 letters at q = 5) is larger than L2, and with
    /// the test next to the arithmetic, perf put 80 % of this loop on
    /// waiting for those loads.
    @inline(never)
    func lookUp<Shape: GramShape>(
        _ units: UnsafePointer<UInt8>, from start: Int, samples: Int, _: Shape.Type,
        into present: UnsafeMutablePointer<Int>
    ) -> Int {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.block) { probes in
            let probes = probes.baseAddress.unsafelyUnwrapped
            var position = start
            for sample in 0..<samples {
                let probe = probe(units, at: position, Shape.self)
                probes[sample] = probe
                monkey_prefetch_for_reading(group(probe))
                position &+= stride
            }
            var found = 0
            var sample = 0
            // Two a turn: the loop's own work is shared.
            while sample &+ 1 < samples {
                let first = isSet(probes[sample])
                let next = isSet(probes[sample &+ 1])
                if first {
                    present[found] = start &+ sample &* stride
                    found &+= 1
                }
                if next {
                    present[found] = start &+ (sample &+ 1) &* stride
                    found &+= 1
                }
                sample &+= 2
            }
            if sample < samples && isSet(probes[sample]) {
                present[found] = start &+ sample &* stride
                found &+= 1
            }
            return found
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
    /// Every q-gram looked at ends by `highest` + q − 1 ≤ count − 1.
    @inline(__always)
    func examine<Shape: GramShape, Sink: MatchSink>(
        _ units: UnsafePointer<UInt8>, count: Int, sampled: Int, _: Shape.Type,
        into sink: inout Sink
    ) {
        let firstWindow = max(0, sampled &- stride &+ 1)
        let lastWindow = min(sampled, count &- chunkLength)
        guard firstWindow <= lastWindow else { return }
        var high = sampled
        let highest = lastWindow &+ stride &- 1
        while high < highest && isPresent(units, at: high &+ 1, Shape.self) {
            high &+= 1
        }
        let lastPassing = min(lastWindow, high &- stride &+ 1)
        guard firstWindow <= lastPassing else { return }
        var low = sampled
        while low > firstWindow && isPresent(units, at: low &- 1, Shape.self) {
            low &-= 1
        }
        guard low <= lastPassing else { return }
        for window in low...lastPassing {
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

/// How a sweep reads a q-gram, as a type: each sweep is specialised for
/// its shape, with the gram length a constant that unrolls its loops.
protocol GramShape {
    /// q, or 0 for the index's own (read at run time).
    static var length: Int { get }
    /// Two bytes a load (`ChunkIndex.pairWeights`), or a unit at a time.
    static var paired: Bool { get }
    /// The grouped filter (`ChunkIndex.groupBytes`), or the dense one.
    static var grouped: Bool { get }
}

extension GramShape {
    static var paired: Bool { false }
    static var grouped: Bool { false }
}

enum GroupedPairs5: GramShape {
    static var length: Int { 5 }
    static var paired: Bool { true }
    static var grouped: Bool { true }
}

enum GroupedPairs6: GramShape {
    static var length: Int { 6 }
    static var paired: Bool { true }
    static var grouped: Bool { true }
}

enum GroupedUnits4: GramShape {
    static var length: Int { 4 }
    static var grouped: Bool { true }
}

enum GroupedUnits5: GramShape {
    static var length: Int { 5 }
    static var grouped: Bool { true }
}

enum GroupedUnitsOfAnyLength: GramShape {
    static var length: Int { 0 }
    static var grouped: Bool { true }
}

enum Units1: GramShape { static var length: Int { 1 } }
enum Units2: GramShape { static var length: Int { 2 } }
enum Units3: GramShape { static var length: Int { 3 } }
enum Units4: GramShape { static var length: Int { 4 } }
enum Units5: GramShape { static var length: Int { 5 } }
enum Units6: GramShape { static var length: Int { 6 } }
enum UnitsOfAnyLength: GramShape { static var length: Int { 0 } }
