import Testing

@testable import MonkeyCore

/// The sentence of each kind of event, made from its fields when the sink
/// writes it: what operators read in the journal and on stderr.
struct EventMessageTests {
    @Test func controlActionsReadAsBefore() throws {
        var harness = Harness()
        let created = try harness.send("START a monkeys=3 interval=250ms")
        #expect(created.events.map(\.message) == ["created and started session a: 3 monkeys every 250ms"])
        let stopped = try harness.send("STOP a")
        #expect(stopped.events.map(\.message) == ["stopped session a after 0 entries"])
        let started = try harness.send("START a")
        #expect(started.events.map(\.message) == ["started session a: 3 monkeys every 250ms"])
        harness.tick(times: 4, every: ms(250), from: ms(250))
        let cleared = try harness.send("CLEAR a")
        #expect(cleared.events.map(\.message) == ["cleared session a (4 entries removed)"])
        // The warning is a field of its own, not part of the sentence.
        let changed = try harness.send("SET a target=\"to be\" monkeys=2")
        #expect(changed.events.map(\.message) == ["changed session a: target=to be monkeys=2"])
        #expect(changed.events.first?.value(of: "warning")?.isEmpty == false)
        let deleted = try harness.send("DELETE a")
        #expect(deleted.events.map(\.message) == ["deleted session a"])
    }

    @Test func hitsAndBestProgressNameTheEntry() throws {
        var harness = Harness()
        try harness.expectOK("START a alphabet=ab monkeys=1 target=a")
        var events: [Event] = []
        for step in 1...40 as ClosedRange<UInt64> { events += harness.tick(now: ms(100 * step)).events }
        let hit = try #require(events.first { $0.kind == .hit })
        #expect(
            hit.message
                == "session a typed its target in entry \(hit.value(of: "number") ?? "") (id \(hit.value(of: "id") ?? ""))"
        )
        let best = try #require(events.first { $0.kind == .best })
        #expect(
            best.message
                == "session a came closer to its target: \"a\" in entry \(best.value(of: "number") ?? "") (id \(best.value(of: "id") ?? ""))"
        )
    }

    @Test func restoresSayWhetherTheSessionTypes() throws {
        var harness = Harness()
        try harness.expectOK("START typing")
        try harness.expectOK("START idle")
        try harness.expectOK("STOP idle")
        harness.tick(times: 3)
        var restored = Harness()
        let typing = try #require(harness.engine.session(named: try sessionName("typing")))
        let idle = try #require(harness.engine.session(named: try sessionName("idle")))
        #expect(restored.engine.restore(typing, now: 0).message == "restored session typing (typing, 3 entries)")
        #expect(restored.engine.restore(idle, now: 0).message == "restored session idle (stopped, 0 entries)")
    }

    @Test func daemonEventsReadAsBefore() throws {
        let reload = Event(.reloaded(configuration: "/etc/monkeyd.conf"), session: nil)
        #expect(reload.message == "reloaded the configuration from /etc/monkeyd.conf")
        let typed = Event(.typed(Entry(id: 9, number: 7, text: "qwert", isHit: false)), session: try sessionName("a"))
        #expect(typed.message == "a: 7. qwert")
        #expect(typed.fields.map(\.key) == ["id", "number", "text", "hit"])
    }
}

/// An event of each kind, for tests that go over all of them.
func sampleEvent(of kind: Event.Kind, session: SessionName) -> Event {
    let entry = Entry(id: 9, number: 7, text: "qwert", isHit: true)
    let payload: Event.Payload =
        switch kind {
        case .start: .started(Event.Started(.defaults, created: true, warning: nil))
        case .stop: .stopped(typed: 3)
        case .set: .updated(Event.Updated(SettingsChange(monkeys: 2), warning: nil))
        case .clear: .cleared(removed: 3, nextID: 4)
        case .delete: .deleted(typed: 3)
        case .hit: .hit(entry, target: "we")
        case .best: .best(Event.Progress(target: "we", best: "w", length: 1, entryID: 9, number: 7))
        case .restore:
            .restored(Event.Restored(settings: .defaults, isTyping: true, entries: 2, nextID: 3, nextNumber: 3))
        case .reload: .reloaded(configuration: "/etc/monkeyd/monkeyd.conf")
        case .typed: .typed(entry)
        case .covered: .covered(work: "hamlet")
        case .coverage: .coverage(percent: 12)
        }
    return Event(payload, session: kind == .reload ? nil : session)
}

/// The line written to stderr when no journal listens.
struct EventLogLineTests {
    private func line(_ event: Event, capacity: Int = 512) -> String {
        let buffer = ByteBuffer(capacity: capacity)
        event.appendLogLine(to: buffer)
        return buffer.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func fieldsAndPeerFollowTheSentence() throws {
        let event = Event(
            .updated(Event.Updated(SettingsChange(monkeys: 7, target: "to be"), warning: nil)),
            session: try sessionName("q"),
            peer: Peer(uid: 1000, pid: 4242, mayChange: true))
        #expect(
            line(event)
                == "monkeyd: set: changed session q: target=to be monkeys=7 [target=\"to be\" monkeys=7 peer_uid=1000 peer_pid=4242]\n"
        )
    }

    @Test(arguments: Event.Kind.allCases)
    func everyLineStartsWithTheDaemonAndTheKind(kind: Event.Kind) throws {
        let event = sampleEvent(of: kind, session: try sessionName("q"))
        #expect(event.kind == kind)
        #expect(line(event).hasPrefix("monkeyd: \(kind.rawValue): "))
    }

    @Test func aPeerFollowsTheFields() throws {
        let bare = Event(.deleted(typed: 3), session: try sessionName("q"))
        #expect(line(bare) == "monkeyd: delete: deleted session q [typed=3]\n")
        let asked = Event(
            .deleted(typed: 3), session: try sessionName("q"), peer: Peer(uid: 0, pid: -1, mayChange: true))
        #expect(line(asked) == "monkeyd: delete: deleted session q [typed=3 peer_uid=0 peer_pid=0]\n")
    }

    /// Lines past the buffer's first capacity, and values that need every
    /// escape, come out as they do in an array.
    @Test func theBufferGrowsAndQuotesAsAnArrayDoes() throws {
        let value = String(repeating: "a\"b\\c\nd\te\u{1}f é ", count: 40)
        let event = Event(.typed(Entry(id: 9, number: 7, text: value, isHit: false)), session: try sessionName("q"))
        var expected: [UInt8] = Array("monkeyd: typed: q: 7. \(value) [id=9 number=7 text=".utf8)
        ResponseEncoder.appendValue(value, to: &expected)
        expected.append(contentsOf: " hit=no]\n".utf8)
        #expect(line(event, capacity: 16) == String(decoding: expected, as: UTF8.self))
        #expect(line(event, capacity: 16).contains(#"\"b\\c\nd\te\x01f"#))
    }
}
