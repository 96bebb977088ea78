/// The client a request came from, as the kernel vouches for it (SO_PEERCRED).
public struct Peer: Sendable, Equatable {
    public let uid: UInt32
    public let pid: Int32
    /// Root, the daemon's own user or a member of its group.
    public let mayChange: Bool

    public init(uid: UInt32, pid: Int32, mayChange: Bool) {
        self.uid = uid
        self.pid = pid
        self.mayChange = mayChange
    }
}

/// Something an operator wants in the journal: one per control action, hit,
/// restore and reload.
public struct Event: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case start, stop, set, clear, delete, hit, best, restore, reload, typed
    }

    public let kind: Kind
    public let session: SessionName?
    /// The event's own fields, as protocol field names (`target`, `monkeys`, `id`...).
    public let fields: [Field]
    public let peer: Peer?

    public struct Field: Sendable, Equatable {
        public let key: String
        public let value: String

        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// Its sentence is made from these when it is written (Event+Message.swift).
    public init(kind: Kind, session: SessionName?, fields: [Field], peer: Peer?) {
        self.kind = kind
        self.session = session
        self.fields = fields
        self.peer = peer
    }

    /// The value of one of the event's fields; nil when it has none.
    public func value(of key: String) -> String? {
        fields.first { $0.key == key }?.value
    }
}
