extension Event {
    /// The event's own fields, in order, by their protocol names (`target`,
    /// `monkeys`, `id`...): the journal's `MONKEY_*` fields and the list in
    /// brackets of the stderr line are these, rendered.
    public func writeFields<Fields: FieldWriter>(to fields: inout Fields) {
        switch payload {
        case .started(let start):
            Self.writeSettings(start.settings, to: &fields)
            fields.write("created", start.created ? "yes" : "no")
            if let warning = start.warning { fields.write("warning", warning.warning) }
        case .stopped(let typed), .deleted(let typed):
            fields.write("typed", decimal: typed)
        case .updated(let update):
            Self.writeChange(of: update, to: &fields)
            if let warning = update.warning { fields.write("warning", warning.warning) }
        case .cleared(let removed, let nextID):
            fields.write("entries", decimal: UInt64(removed))
            fields.write("id", decimal: nextID)
        case .hit(let entry, let target):
            fields.write("target", target)
            fields.write("id", decimal: entry.id)
            fields.write("number", decimal: entry.number)
            fields.write("text", entry.text)
        case .covering(let entry, let newlyCovered):
            fields.write("id", decimal: entry.id)
            fields.write("number", decimal: entry.number)
            fields.write("new", decimal: UInt64(newlyCovered))
        case .covered(let work):
            fields.write("work", work)
        case .coverage(let percent):
            fields.write("percent", decimal: UInt64(percent))
        case .best(let progress):
            fields.write("target", progress.target)
            fields.write("best", progress.best)
            fields.write("id", decimal: progress.entryID)
            fields.write("number", decimal: progress.number)
        case .restored(let restored):
            Self.writeSettings(restored.settings, to: &fields)
            fields.write("state", restored.isTyping ? "running" : "stopped")
            fields.write("entries", decimal: UInt64(restored.entries))
            fields.write("id", decimal: restored.nextID)
            fields.write("number", decimal: restored.nextNumber)
        case .reloaded(let configuration):
            fields.write("config", configuration)
        case .typed(let entry):
            fields.write("id", decimal: entry.id)
            fields.write("number", decimal: entry.number)
            fields.write("text", entry.text)
            fields.write("hit", entry.isHit ? "yes" : "no")
        }
    }

    /// A session's settings, as START, a restore and the `started` record
    /// name them; the seed only when one is set.
    static func writeSettings<Fields: FieldWriter>(_ settings: SessionSettings, to fields: inout Fields) {
        if settings.isCorpusSession {
            fields.write("corpus", settings.corpus)
            fields.write("chunk", decimal: UInt64(settings.chunk))
        } else {
            fields.write("target", settings.target.target)
        }
        fields.write("monkeys", decimal: UInt64(settings.monkeys))
        fields.write("interval", settings.interval.description)
        fields.write("alphabet", settings.alphabet.text)
        if let seed = settings.seed { fields.write("seed", seed.description) }
    }

    /// The settings a SET named, in the order of the keys (`seed=` empty
    /// for fresh randomness); read where they lie in the box, not copied
    /// out of it.
    static func writeChange<Fields: FieldWriter>(of update: Updated, to fields: inout Fields) {
        if let target = update.change.target { fields.write("target", target) }
        if let corpus = update.change.corpus { fields.write("corpus", corpus.name) }
        if let chunk = update.change.chunk { fields.write("chunk", decimal: UInt64(chunk)) }
        if let monkeys = update.change.monkeys { fields.write("monkeys", decimal: UInt64(monkeys)) }
        if let interval = update.change.interval { fields.write("interval", interval.description) }
        if let alphabet = update.change.alphabet { fields.write("alphabet", alphabet.text) }
        if let seed = update.change.seed { fields.write("seed", seed.text) }
    }

    /// The journal field for one of the event's own fields: `MONKEY_` and the
    /// key in capitals, entry ids and numbers named as such.
    public static func journalFieldName(_ key: String) -> String {
        let name =
            switch key {
            case "id": "ENTRY_ID"
            case "number": "ENTRY_NUMBER"
            case "text": "ENTRY_TEXT"
            default: key.uppercased()
            }
        // Journal field names allow only A-Z, 0-9 and _.
        return "MONKEY_" + String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }
}

extension Event.Kind {
    /// The journal's `MESSAGE_ID` of this kind of event: fixed forever, and
    /// explained by `packaging/monkeyd.catalog` (`journalctl -x`).
    public var messageID: String {
        switch self {
        case .start: "94dcc3235ab148e0b9f75ba9626f7f92"
        case .stop: "6b8fd3c60ac84a0c84a2498533c45cec"
        case .set: "8dbaeb7e76474133940d8b985dd27a57"
        case .clear: "7dc798136cb94817addd2af42e68a409"
        case .delete: "12c9a3b7656145b2b61b0e379cbab726"
        case .hit: "631682b29566412ba7cb7c783551e79d"
        case .best: "c4ad27215bd64a13a0dff4be3605b55a"
        case .restore: "7c95dc64af774db7ba1143e6b29a9dff"
        case .reload: "b90040f40a474887837e41bd2067cbb5"
        case .typed: "a0163e3e104a471e83b82e9ef74292d0"
        case .covered: "791ee81a9e244f6688fc50a6bedd2b59"
        case .coverage: "ee36508632a94f9f9a24a91e119a0e98"
        }
    }

    /// The syslog priority of this kind: control actions are notices an
    /// operator may want to see; typed entries are debug chatter.
    public var priority: Int {
        switch self {
        case .typed: 7
        case .hit, .best, .restore, .reload, .covered, .coverage: 6
        case .start, .stop, .set, .clear, .delete: 5
        }
    }
}
