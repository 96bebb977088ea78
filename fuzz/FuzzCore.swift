// libFuzzer entry over the pure core: bytes → LineFramer → RequestParser →
// Engine.handle on a scratch state, with ticks and LOG/TAIL streams, and
// every response line encoded and decoded again; the same bytes as the
// files the daemon reads back (the entries journal, an entries file); the
// same bytes as an HTTP request to the metrics listener, a metrics_listen
// address and lines of the metrics exposition.
// Compiled together with Sources/MonkeyCore by `make fuzz` (plain swiftc,
// not SwiftPM, whose generated main would replace libFuzzer's).

/// The harness's own limits are small so that each input runs fast and a
/// crash, not a slow input, is what the fuzzer finds.
private func fuzzLimits(lineLength: Int) -> Limits {
    var limits = Limits()
    limits.maximumLineLength = lineLength
    limits.maximumMonkeys = 64
    limits.maximumSessions = 8
    limits.maximumEntries = 32
    limits.maximumTargetBytes = 64
    limits.maximumPendingOutput = 4096
    return limits
}

/// Feeds one input through every step of the core and checks what comes out.
private func runCore(_ bytes: UnsafeRawBufferPointer) {
    guard let first = bytes.first else { return }
    // The first byte picks the line limit and how the rest is cut into reads.
    let limits = fuzzLimits(lineLength: 16 + Int(first) * 4)
    var engine = Engine(limits: limits, seed: UInt64(first))
    var framer = LineFramer(maximumLength: limits.maximumLineLength)
    let parser = RequestParser(limits: limits)
    var chunking = WyRand(seed: UInt64(first) &* 0x9E37_79B9)
    var now: UInt64 = 1_000_000_000
    var output: [UInt8] = []
    var start = 1
    var requestCount = 0
    while start < bytes.count {
        let end = min(bytes.count, start + 1 + Int(chunking.next(below: 97)))
        let chunk = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        start = end
        var offset = 0
        while let frame = framer.nextFrame(in: chunk, from: &offset) {
            requestCount += 1
            output.removeAll(keepingCapacity: true)
            guard case .line(let line) = frame else { continue }
            precondition(line.count <= limits.maximumLineLength, "a line over the limit was framed")
            let request: Request
            do {
                guard let parsed = try parser.parse(line) else { continue }
                request = parsed
            } catch {
                checkError(error)
                continue
            }
            let peer = Peer(uid: 1000, pid: 1, mayChange: requestCount % 7 != 0)
            let before = state(of: engine)
            let deadline = engine.nextDeadline()
            var reply = engine.handle(request, from: peer, now: now)
            if case .error = reply.status {
                precondition(reply.events.isEmpty && reply.change == nil, "a refused request logged a change")
                precondition(state(of: engine) == before, "a refused request changed state")
            }
            // Every third change cannot be made durable: it is taken back whole.
            if let change = reply.change, requestCount % 3 == 0 {
                reply = engine.revert(change, because: StorageError("the fuzzer's disk is full"))
                precondition(state(of: engine) == before, "a reverted change left state behind")
                precondition(engine.nextDeadline() == deadline, "a reverted change moved the schedule")
            }
            for record in reply.records { ResponseEncoder.append(record, to: &output) }
            if let status = reply.status { ResponseEncoder.append(status, to: &output) }
            if var stream = reply.stream {
                // A few rounds of a slow reader, then the stream is dropped.
                for _ in 0..<8 {
                    let progress = engine.fill(&stream, into: &output, byteLimit: output.count + 512)
                    if progress != .more { break }
                }
            }
            if var tail = reply.tail {
                // A few rounds of a slow reader, then the stream is dropped.
                for _ in 0..<8 {
                    if engine.fill(&tail, into: &output, byteLimit: output.count + 512) != .more { break }
                }
            }
            if var listing = reply.listing {
                var rounds = 0
                while !engine.fill(&listing, into: &output, byteLimit: output.count + 512) {
                    rounds += 1
                    precondition(rounds < 100_000, "a listing that never ends")
                }
            }
            if var metrics = reply.metrics {
                var exposition: [UInt8] = []
                var rounds = 0
                while !engine.fill(&metrics, into: &exposition, byteLimit: exposition.count + 512) {
                    rounds += 1
                    precondition(rounds < 100_000, "metrics that never end")
                }
                for line in exposition.split(separator: 0x0A) {
                    precondition(
                        line.first == UInt8(ascii: "#") || line.starts(with: Array("monkeyd_".utf8)),
                        "a metrics line that is neither a comment nor a sample")
                }
            }
            checkDecodable(output)
            checkEntriesInOrder(output)
            now += 3_000_000
            var typed: [TypedEntry] = []
            _ = engine.runDueTicks(now: now, into: &typed)
            for item in typed {
                precondition(item.entry.number >= 1 && item.entry.id >= 1, "entries are numbered from 1")
            }
        }
    }
}

/// Everything a request may change, to compare before and after.
private func state(of engine: Engine) -> [SessionSnapshot] {
    engine.sessionNames.compactMap { engine.session(named: $0)?.snapshot }
}

/// The entries of one response come oldest first, ids strictly increasing
/// within each session.
private func checkEntriesInOrder(_ output: [UInt8]) {
    var lastID: [String: UInt64] = [:]
    for line in output.split(separator: 0x0A) where line.starts(with: Array("entry ".utf8)) {
        guard case .record(let record) = try? ResponseDecoder.decode(String(decoding: line, as: UTF8.self)),
            let id = record.fields.first(where: { $0.key == "id" }).flatMap({ UInt64($0.value) }),
            let session = record.fields.first(where: { $0.key == "session" })?.value
        else {
            preconditionFailure("an entry line without an id or a session")
        }
        precondition(id > lastID[session, default: 0], "entries out of order")
        lastID[session] = id
    }
}

private func checkError(_ error: ProtocolError) {
    precondition(!error.message.contains("\n"), "an error message spans lines")
}

/// Every line the core encodes reads back with the client's decoder.
private func checkDecodable(_ output: [UInt8]) {
    for line in output.split(separator: 0x0A) {
        let text = String(decoding: line, as: UTF8.self)
        do {
            _ = try ResponseDecoder.decode(text)
        } catch {
            preconditionFailure("undecodable response line: \(text)")
        }
    }
}

/// The same bytes as the other texts the core reads: a configuration file
/// and response lines (what monkeyctl decodes).
private func runTextReaders(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    if case .success(let configuration) = Result(catching: { () throws(Configuration.Problem) in
        try Configuration.parse(text)
    }) {
        precondition(configuration.limits.maximumLineLength >= 64, "a configuration outside its ranges")
    }
    for line in text.split(separator: "\n").prefix(64) {
        _ = try? ResponseDecoder.decode(String(line))
    }
}

/// The same bytes as the files the daemon reads back: records of an
/// entries journal (as they are, and sealed as one record so that its body
/// is reached past the checksum; of this format version and the one
/// before), an entries file of each format version
/// (the same two ways), a control log segment and a snapshot. Reading
/// stops cleanly whatever they hold, the entries a journal yields come back
/// the same through a new batch and through its grouping, the fold's reader takes what `decode`
/// takes, an entries file's entries come back the same once written in the
/// current format, and the records a control log yields come back the
/// same once written again.
private func runFileReaders(_ bytes: UnsafeRawBufferPointer) {
    var sealed = [UInt8](repeating: 0, count: JournalFile.recordHeaderLength) + Array(bytes)
    sealed.withUnsafeMutableBytes { SealedRecord.seal($0) }
    for journal in [JournalFile.header + Array(bytes), JournalFile.header + sealed] {
        let contents = decodeStoppingCleanly(journal)
        var batch = JournalBatch()
        for (key, entries) in contents.entries {
            for entry in entries { batch.append(entry, session: key.name, epoch: key.epoch) }
        }
        batch.seal()
        let again = JournalFile.decode(JournalFile.header + batch.records.bytes).entries
        precondition(
            again == contents.entries.filter { !$0.value.isEmpty }, "journal entries do not come back through a batch")
        // Grouping sorts by a table of 65,536 counts: only when there is something to group.
        var grouping = JournalGrouping()
        if !batch.isEmpty, let grouped = grouping.group(batch) {
            let regrouped = JournalFile.decode(JournalFile.header + grouped)
            precondition(regrouped.damage == nil, "a grouped batch reads as damaged")
            checkFoldScan(of: JournalFile.header + grouped)
            precondition(regrouped.entries == again, "journal entries do not come back grouped")
        }
        checkFoldScan(of: journal)
    }
    // Journals of the release before groups are read (by `decode` only).
    for journal in [JournalFile.headerVersion3 + Array(bytes), JournalFile.headerVersion3 + sealed] {
        _ = decodeStoppingCleanly(journal)
    }
    let epoch: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0]
    for file in [
        EntryFile.preamble(epoch: 1) + Array(bytes), EntryFile.preamble(epoch: 1) + sealed,
        EntryFile.headerVersion2 + epoch + Array(bytes), EntryFile.headerVersion2 + epoch + sealed,
        EntryFile.headerVersion1 + Array(bytes), EntryFile.headerVersion1 + sealed,
    ] {
        let entries = EntryFile.decode(file, keepingLast: 8)
        precondition(entries.entries.count <= min(8, entries.recordCount), "an entries file kept more than it held")
        precondition(entries.validLength <= file.count, "an entries file read past its end")
        let again = EntryFile.decode(EntryFile.encode(entries.entries, epoch: 1), keepingLast: 8)
        precondition(again.damage == nil && again.entries == entries.entries, "entries do not come back once written")
    }
    for log in [
        ControlFile.preamble(ControlFile.logHeader, segment: 1) + Array(bytes),
        ControlFile.preamble(ControlFile.logHeader, segment: 1) + sealed,
    ] {
        let contents = ControlFile.decodeLog(log)
        precondition(contents.validLength <= log.count, "a control log read past its end")
        var written = ControlFile.preamble(ControlFile.logHeader, segment: 1)
        for record in contents.records { ControlFile.append(record, to: &written) }
        precondition(ControlFile.decodeLog(written).records == contents.records, "control records do not come back")
    }
    let events = EventFile.decode(EventFile.header + Array(bytes))
    precondition(EventFile.decode(EventFile.encode(events.events)).events == events.events, "events do not come back")
    _ = ControlFile.decodeSnapshotLeniently(ControlFile.preamble(ControlFile.snapshotHeader, segment: 1) + Array(bytes))
}

/// The journal `journal` decoded, which reads no further than its end and
/// says why it stopped short of it (of any format version).
private func decodeStoppingCleanly(_ journal: [UInt8]) -> JournalContents {
    let contents = JournalFile.decode(journal)
    precondition(
        (contents.damage == nil) == (contents.validLength == journal.count)
            && contents.validLength >= JournalFile.header.count,
        "a journal of version \(journal[JournalFile.header.count - 1]) read past its end or stopped without saying why")
    return contents
}

/// The fold's reader (`JournalFile.scanEntries`, over the records after
/// the header, as one chunk) visits the entries `decode` reads of the
/// records it consumed, and stops where and why `decode` does: at the
/// end, at a torn record, at damage, or at a record of a kind only
/// `decode` reads, which it leaves to `decode` (read, or damaged there).
private func checkFoldScan(of journal: [UInt8]) {
    let start = JournalFile.header.count
    var visited: [SessionEpoch: [Entry]] = [:]
    let scan = journal.withUnsafeBytes { raw in
        JournalFile.scanEntries(UnsafeRawBufferPointer(rebasing: raw[start...]), fileOffset: start) { item in
            guard let name = SessionName(bytes: item.name.assumingMemoryBound(to: UInt8.self)) else {
                preconditionFailure("the fold's reader visited an entry of no valid name")
            }
            let text = String(decoding: item.text, as: UTF8.self)
            visited[SessionEpoch(name, item.epoch), default: []].append(
                Entry(id: item.id, number: item.number, text: text, isHit: item.isHit))
        }
    }
    // A group at a time, as the fold takes them: what a group says of its entries is what they hold.
    let groupScan = journal.withUnsafeBytes { raw in
        JournalFile.scanGroups(UnsafeRawBufferPointer(rebasing: raw[start...]), fileOffset: start) { group in
            var offset = 0
            var ids: [(id: UInt64, number: UInt64)] = []
            for _ in 0..<group.count {
                let entry = group.entry(at: offset)
                ids.append((entry.id, entry.number))
                offset = entry.end
            }
            let rises = zip(ids, ids.dropFirst()).allSatisfy { $1.id > $0.id && $1.number > $0.number }
            guard let first = ids.first, let last = ids.last else { preconditionFailure("a group of no entries") }
            precondition(
                offset == group.entries.count && first == group.first && last == group.last
                    && rises == group.isIncreasing,
                "a group says other than its entries hold")
        }
    }
    precondition(groupScan == scan, "the fold's reader stops elsewhere a group at a time")
    let end = start + scan.consumed
    precondition(end <= journal.count, "the fold's reader read past its chunk")
    let read = JournalFile.decode(Array(journal[..<end]))
    precondition(
        read.damage == nil && read.entries.filter { !$0.value.isEmpty } == visited,
        "the fold's reader and decode take different entries")
    let whole = JournalFile.decode(journal)
    switch scan.stop {
    case .endOfChunk:
        precondition(end == journal.count && whole.damage == nil, "the fold's reader ended early")
    case .needsMore:
        precondition(whole.damage == .truncatedRecord(offset: end), "the fold's reader waits for a record decode cuts")
    case .damaged(let damage):
        precondition(whole.damage == damage, "the fold's reader and decode find different damage")
    case .otherKind:
        precondition(
            whole.validLength > end || whole.damage == .checksumMismatch(offset: end),
            "the fold's reader left a record to decode that decode does not read")
    }
}

/// The same bytes as what reaches the metrics listener: an HTTP request
/// head fed in pieces (it is read whole or refused with a status, and never
/// kept past its limit), answered by the endpoint; a `metrics_listen`
/// value, which reads back from its own description; lines of the
/// exposition, which read back the same once written again.
private func runHTTPReaders(_ bytes: UnsafeRawBufferPointer) {
    guard let first = bytes.first else { return }
    let limit = 64 + Int(first) * 8
    var reader = HTTPRequestReader(limit: limit)
    var chunking = WyRand(seed: UInt64(first) &* 0x2545_F491)
    var start = 1
    reading: while start < bytes.count {
        let end = min(bytes.count, start + 1 + Int(chunking.next(below: 61)))
        let piece = bytes[start..<end]
        start = end
        do {
            guard let request = try reader.receive(piece) else {
                precondition(reader.byteCount <= limit + 1, "the reader kept more than its limit")
                continue
            }
            switch MetricsEndpoint.answer(to: request) {
            case .metrics(let version, _):
                precondition(request.path == MetricsEndpoint.path && version == request.version, "a wrong route")
            case .refusal(let status, let message, _, let isHead):
                precondition(status != .ok && !message.contains("\n"), "a refusal that reads as success")
                _ = HTTPResponse.refusal(status, message, date: "D", isHead: isHead)
            }
            break reading
        } catch {
            precondition(error.status != .ok && !error.message.contains("\n"), "an error without a status")
            break reading
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let address = try? ListenAddress.parse(text) {
        precondition((try? ListenAddress.parse(address.description)) == address, "an address that does not read back")
    }
    for line in text.split(separator: "\n").prefix(64) {
        guard case .sample(let sample) = try? ExpositionLine.parse(String(line)) else { continue }
        var output: [UInt8] = []
        Exposition.append(
            MetricSample(labels: sample.labels, value: sample.value), of: sample.name, to: &output)
        let again = try? ExpositionLine.parse(String(decoding: output.dropLast(), as: UTF8.self))
        guard case .sample(let reread) = again else { preconditionFailure("a written sample does not read back") }
        precondition(
            reread.name == sample.name && reread.labels.map(\.value) == sample.labels.map(\.value)
                && (reread.value == sample.value || (reread.value.isNaN && sample.value.isNaN)),
            "a sample changed when written again")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCoreOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    runCore(bytes)
    runTextReaders(bytes)
    runFileReaders(bytes)
    runHTTPReaders(bytes)
    return 0
}
