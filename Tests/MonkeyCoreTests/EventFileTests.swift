import Testing

@testable import MonkeyCore

/// The events file: what is appended reads back, whatever the size of the
/// buffer each record is assembled in.
struct EventFileTests {
    private func events() throws -> [EventRecord] {
        let long = String(repeating: "tö be or not ", count: 200)
        return [
            EventRecord(
                id: 1, time: 1_764_590_000_000, kind: .created, session: try sessionName("a"), content: .written([])),
            EventRecord(
                id: 2, time: 1_764_590_000_001, kind: .updated, session: try sessionName("a"),
                content: .event(.updated(Event.Updated(SettingsChange(monkeys: 7, target: long), warning: nil)))),
            EventRecord(
                id: 300, time: 1_764_590_000_002, kind: .hit, session: try sessionName("b.c-d"),
                content: .written([
                    EventRecord.Field("entry_id", "12"), EventRecord.Field("number", "3"),
                    EventRecord.Field("text", "\"\n"),
                ])),
        ]
    }

    @Test func appendedRecordsReadBack() throws {
        let events = try events()
        let scratch = ByteBuffer(capacity: 16)
        var file = EventFile.header
        for event in events { EventFile.append(event, to: &file, assemblingIn: scratch) }
        let contents = EventFile.decode(file)
        #expect(contents.events == events)
        #expect(contents.damage == nil && contents.validLength == file.count)
        #expect(EventFile.encode(events) == file)
    }

    @Test func aFlippedByteEndsTheRecordsBeforeIt() throws {
        let events = try events()
        var file = EventFile.encode(events)
        file[file.count - 2] ^= 0x01
        let contents = EventFile.decode(file)
        #expect(contents.events == Array(events.prefix(2)))
        #expect(contents.damage != nil)
    }
}
