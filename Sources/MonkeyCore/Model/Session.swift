/// A named typing session: its settings, its log and its counters.
public struct Session: Sendable {
    public let name: SessionName
    public private(set) var settings: SessionSettings
    public var isTyping: Bool
    public private(set) var log: EntryLog
    /// The id the next entry gets; ids are never reused, not even after CLEAR.
    public private(set) var nextID: UInt64
    /// The number the next entry gets; 1 after creation or CLEAR.
    public private(set) var nextNumber: UInt64
    /// Entries typed since the session was created or last cleared.
    public private(set) var typed: UInt64
    /// Hits since the target was set or the session last cleared.
    public private(set) var hits: UInt64
    /// Length in characters of the longest prefix of the target seen so far.
    public private(set) var bestLength: Int
    /// Which entries on disk are this session's: those of this epoch. A
    /// daemon-wide number given at creation and at each CLEAR, never twice,
    /// so that entries of a cleared log or of a deleted session of the same
    /// name are told apart from the session's own without erasing them first.
    public private(set) var epoch: UInt64

    public init(name: SessionName, settings: SessionSettings, retention: Int, epoch: UInt64 = 0) {
        self.name = name
        self.settings = settings
        self.isTyping = false
        self.log = EntryLog(capacity: retention)
        self.nextID = 1
        self.nextNumber = 1
        self.typed = 0
        self.hits = 0
        self.bestLength = 0
        self.epoch = epoch
    }

    /// Restores a session exactly as it was saved.
    public init(restoring snapshot: SessionSnapshot, entries: [Entry], retention: Int) {
        self.name = snapshot.name
        self.settings = snapshot.settings
        self.isTyping = snapshot.isTyping
        self.log = EntryLog(capacity: retention)
        for entry in entries { log.append(entry) }
        self.nextID = max(snapshot.nextID, (entries.last?.id ?? 0) + 1)
        self.nextNumber = max(snapshot.nextNumber, (entries.last?.number ?? 0) + 1)
        self.typed = snapshot.typed
        self.hits = snapshot.hits
        self.bestLength = min(snapshot.bestLength, snapshot.settings.target.length)
        self.epoch = snapshot.epoch
    }

    /// The best progress toward the target, as text.
    public var best: String { settings.target.prefix(characters: bestLength) }

    public var snapshot: SessionSnapshot {
        SessionSnapshot(
            name: name, settings: settings, isTyping: isTyping, nextID: nextID, nextNumber: nextNumber,
            typed: typed, hits: hits, bestLength: bestLength, epoch: epoch)
    }

    /// Types one entry: each monkey types one character.
    public mutating func type(using random: inout WyRand) -> Entry {
        let text = typeText(using: &random)
        let target = settings.target
        let isHit = target.isHit(text)
        if isHit {
            hits += 1
            bestLength = target.length
        } else if !target.isEmpty {
            bestLength = target.longestPrefix(in: text, longerThan: bestLength)
        }
        return append(text, isHit: isHit)
    }

    /// Types one entry of a corpus session: `covers` covers its text's
    /// windows and answers whether that covered a character not covered
    /// before, which makes the entry a hit.
    public mutating func type(using random: inout WyRand, covering covers: (String) -> Bool) -> Entry {
        let text = typeText(using: &random)
        let isHit = covers(text)
        if isHit { hits += 1 }
        return append(text, isHit: isHit)
    }

    /// The next entry's text: with a seed, a function of the seed and its id.
    private func typeText(using random: inout WyRand) -> String {
        if let seed = settings.seed {
            var generator = seed.generator(forEntry: nextID)
            return settings.alphabet.typeString(length: settings.monkeys, using: &generator)
        }
        return settings.alphabet.typeString(length: settings.monkeys, using: &random)
    }

    private mutating func append(_ text: String, isHit: Bool) -> Entry {
        let (id, number) = takeNextNumbers()
        let entry = Entry(id: id, number: number, text: text, isHit: isHit)
        log.append(entry)
        return entry
    }

    /// The next entry's id and number, given to it: counted as typed.
    private mutating func takeNextNumbers() -> (id: UInt64, number: UInt64) {
        defer {
            nextID += 1
            nextNumber += 1
            typed += 1
        }
        return (nextID, nextNumber)
    }

    /// Takes in a batch typed from the session's next id (a `TypingJob` made
    /// from it): its kept entries into the log, the ids and numbers past
    /// it, its hits and best progress; each kept entry is lent to `each`
    /// as it goes in. Returns the number of its first entry.
    @discardableResult
    public mutating func absorb(
        _ batch: TypedBatch, coverageHits: [UInt64]? = nil, each: (Entry) -> Void = { _ in }
    ) -> UInt64 {
        precondition(batch.firstID == nextID, "a batch is typed from the session's next id")
        let numberOfFirst = nextNumber
        for index in 0..<batch.kept.count {
            let entry = batch.keptEntry(index, numberOfFirst: numberOfFirst, hitIDs: coverageHits)
            log.append(entry)
            each(entry)
        }
        let count = UInt64(batch.count)
        nextID += count
        nextNumber += count
        typed += count
        // A corpus session's hits are what its coverage says (`coverageHits`, in id order).
        hits += UInt64(coverageHits?.count ?? batch.hitCount)
        bestLength = max(bestLength, min(batch.bestLength, settings.target.length))
        return numberOfFirst
    }

    /// Takes in one entry typed from the session's next id with `text`
    /// (a timed tick's, `Typist.typeEntry`), as `absorb` takes in a batch
    /// of that one entry but for best progress (`raiseBest`); returns it.
    mutating func absorb(text: String, isHit: Bool) -> Entry {
        if isHit { hits += 1 }
        return append(text, isHit: isHit)
    }

    /// Takes in one entry as `absorb(text:isHit:)` does, its text in UTF-8,
    /// with no `String` of a text that fits in the log's entry; returns its
    /// id and number. Inlined into the tick, as are the two steps of the
    /// log's append (`EntryLog.append(id:number:isHit:text:)`): as calls
    /// of their own, the three cost a tick 50 instructions to enter and
    /// leave.
    @inline(__always)
    mutating func absorb(bytes text: UnsafeBufferPointer<UInt8>, isHit: Bool) -> (id: UInt64, number: UInt64) {
        if isHit { hits += 1 }
        let (id, number) = takeNextNumbers()
        log.append(id: id, number: number, isHit: isHit, text: text)
        return (id, number)
    }

    /// Raises best progress to `best` characters of the target (no more than its length).
    mutating func raiseBest(to best: Int) {
        // The target's length is read only on a rise: most ticks raise nothing.
        if best > bestLength { bestLength = max(bestLength, min(best, settings.target.length)) }
    }

    /// Applies new settings; a new target starts its hits and progress
    /// afresh. Returns what it replaced, for `undo`.
    @discardableResult
    public mutating func apply(_ change: SettingsChange) -> SettingsUndo {
        var undo = SettingsUndo()
        if let monkeys = change.monkeys {
            undo.monkeys = settings.monkeys
            settings.monkeys = monkeys
        }
        if let interval = change.interval {
            undo.interval = settings.interval
            settings.interval = interval
        }
        if let alphabet = change.alphabet {
            undo.alphabet = settings.alphabet
            settings.alphabet = alphabet
        }
        if let seed = change.seed {
            undo.seed = .some(settings.seed)
            switch seed {
            case .seed(let seed): settings.seed = seed
            case .fresh: settings.seed = nil
            }
        }
        if let chunk = change.chunk {
            undo.chunk = settings.chunk
            settings.chunk = chunk
        }
        // A non-empty corpus clears the target, a non-empty target the corpus.
        var target = change.target
        if let corpus = change.corpus {
            undo.corpus = settings.corpus
            settings.corpus = corpus.name
            if !corpus.name.isEmpty { target = "" }
        }
        if let target, !target.isEmpty, settings.isCorpusSession {
            undo.corpus = undo.corpus ?? settings.corpus
            settings.corpus = ""
        }
        if let target, target != settings.target.target {
            undo.target = undo.target ?? (settings.target, hits, bestLength)
            settings.target = TargetMatcher(target: target)
            hits = 0
            bestLength = 0
        }
        return undo
    }

    /// Puts back what `apply` replaced: the session is as it was before,
    /// provided nothing else changed it in between.
    public mutating func undo(_ undo: SettingsUndo) {
        if let monkeys = undo.monkeys { settings.monkeys = monkeys }
        if let interval = undo.interval { settings.interval = interval }
        if let alphabet = undo.alphabet { settings.alphabet = alphabet }
        if let seed = undo.seed { settings.seed = seed }
        if let chunk = undo.chunk { settings.chunk = chunk }
        if let corpus = undo.corpus { settings.corpus = corpus }
        if let (target, hits, bestLength) = undo.target {
            settings.target = target
            self.hits = hits
            self.bestLength = bestLength
        }
    }

    /// A corpus session's coverage starts afresh (a new corpus, alphabet or
    /// chunk), and with it its hits.
    public mutating func startCoverageAfresh() {
        hits = 0
    }

    /// Removes every entry; numbering restarts at 1, ids continue, and the
    /// entries on disk from now on are those of `epoch`.
    public mutating func clear(epoch: UInt64) {
        self.epoch = epoch
        log.removeAll()
        nextNumber = 1
        typed = 0
        hits = 0
        bestLength = 0
    }

    /// Moves the next id and number past ones that may have been handed out
    /// before a crash, so that they are never given to another entry.
    public mutating func skip(toID id: UInt64, number: UInt64) {
        nextID = max(nextID, id)
        nextNumber = max(nextNumber, number)
    }

    public mutating func setRetention(_ capacity: Int) {
        if capacity != log.capacity { log.setCapacity(capacity) }
    }
}

/// What `Session.apply` replaced: only the settings a change names, so
/// that keeping it for a revert copies nothing else (a SET of the monkeys
/// keeps one number, not the whole session).
public struct SettingsUndo: Sendable {
    var monkeys: Int?
    var interval: Interval?
    var alphabet: Alphabet?
    /// The seed it had, or none (`.some(nil)`), when the change set one.
    var seed: TypingSeed??
    /// A new target's predecessor, with the hits and progress it had made.
    var target: (matcher: TargetMatcher, hits: UInt64, bestLength: Int)?
    var chunk: Int?
    var corpus: String?
}

/// Everything about a session except its entries: what the store keeps
/// durable before a control action is acknowledged.
public struct SessionSnapshot: Sendable, Equatable {
    public var name: SessionName
    public var settings: SessionSettings
    public var isTyping: Bool
    public var nextID: UInt64
    public var nextNumber: UInt64
    public var typed: UInt64
    public var hits: UInt64
    public var bestLength: Int
    /// See `Session.epoch`.
    public var epoch: UInt64

    public init(
        name: SessionName, settings: SessionSettings, isTyping: Bool, nextID: UInt64, nextNumber: UInt64,
        typed: UInt64, hits: UInt64, bestLength: Int, epoch: UInt64 = 0
    ) {
        self.name = name
        self.settings = settings
        self.isTyping = isTyping
        self.nextID = nextID
        self.nextNumber = nextNumber
        self.typed = typed
        self.hits = hits
        self.bestLength = bestLength
        self.epoch = epoch
    }
}
