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
        }
    }

    /// The syslog priority of this kind: control actions are notices an
    /// operator may want to see; typed entries are debug chatter.
    public var priority: Int {
        switch self {
        case .typed: 7
        case .hit, .best, .restore, .reload: 6
        case .start, .stop, .set, .clear, .delete: 5
        }
    }
}

extension Event {
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
