/// What happened, once, for every way it goes out: the journal's fields
/// (`writeFields`), its sentence (`appendMessage`), the stderr line
/// (`appendLogLine`) and the EVENTS records (`forEachRecordKind`,
/// `EventRecord`) are renderings of its typed payload, made where they
/// are written. One per control action, hit, best progress, restore and
/// reload, and per typed entry when those are logged.
public struct Event: Sendable {
    /// The session it happened to; nil for the daemon's own (a reload).
    public let session: SessionName?
    /// Who asked, for a control action.
    public let peer: Peer?
    public let payload: Payload
    /// The journal's name for it, set with the payload: read at every
    /// rendering, where a switch over the payload would copy it.
    public let kind: Kind

    /// What happened, with what it happened with. The large cases are
    /// boxed: an event rides in every change's `Reply`. Those of the
    /// changes are boxes of their own (`Started`, `Updated`), which a
    /// rendering reads in place: taking the payload of an `indirect` case
    /// out copies it whole, a retain of each of its texts.
    public enum Payload: Sendable {
        /// START (see `Started`).
        case started(Started)
        /// STOP, after `typed` entries since the session was created or cleared.
        case stopped(typed: UInt64)
        /// SET (see `Updated`).
        case updated(Updated)
        /// CLEAR: `removed` entries gone; the next entry gets `nextID`.
        case cleared(removed: Int, nextID: UInt64)
        /// DELETE, after `typed` entries.
        case deleted(typed: UInt64)
        /// An entry holding the session's target.
        indirect case hit(Entry, target: String)
        /// An entry of a corpus session that covered `newlyCovered`
        /// characters not covered before: its hit.
        indirect case covering(Entry, newlyCovered: Int)
        /// A work of a corpus session became fully covered.
        case covered(work: String)
        /// The corpus's coverage reached a new whole percent.
        case coverage(percent: Int)
        /// Best progress grew (see `Progress`).
        indirect case best(Progress)
        /// The session is back after a restart, as `Restored` says.
        indirect case restored(Restored)
        /// SIGHUP read the configuration file at this path.
        case reloaded(configuration: String)
        /// An entry typed (logged only with `log_typed = yes`).
        indirect case typed(Entry)
    }

    /// A START: the session types with `settings`; `created` when the
    /// START made it; `warning` when its target can never be typed.
    public final class Started: Sendable {
        public let settings: SessionSettings
        public let created: Bool
        public let warning: Impossibility?

        public init(_ settings: SessionSettings, created: Bool, warning: Impossibility?) {
            self.settings = settings
            self.created = created
            self.warning = warning
        }
    }

    /// A SET: the settings it changed, and why the target can never be
    /// typed, when it cannot.
    public final class Updated: Sendable {
        public let change: SettingsChange
        public let warning: Impossibility?

        public init(_ change: SettingsChange, warning: Impossibility?) {
            self.change = change
            self.warning = warning
        }
    }

    /// Best progress: the longest prefix of the target typed so far.
    public struct Progress: Sendable, Equatable {
        public let target: String
        /// The prefix, as text, and its length in characters.
        public let best: String
        public let length: Int
        /// The entry it was typed in.
        public let entryID: UInt64
        public let number: UInt64
    }

    /// A session restored at start-up.
    public struct Restored: Sendable, Equatable {
        public let settings: SessionSettings
        public let isTyping: Bool
        /// Entries retained, and the id and number the next entry gets.
        public let entries: Int
        public let nextID: UInt64
        public let nextNumber: UInt64
    }

    public init(_ payload: Payload, session: SessionName?, peer: Peer? = nil) {
        self.session = session
        self.peer = peer
        self.payload = payload
        self.kind =
            switch payload {
            case .started: .start
            case .stopped: .stop
            case .updated: .set
            case .cleared: .clear
            case .deleted: .delete
            case .hit, .covering: .hit
            case .covered: .covered
            case .coverage: .coverage
            case .best: .best
            case .restored: .restore
            case .reloaded: .reload
            case .typed: .typed
            }
    }

    /// The journal's name for what happened (`MONKEY_EVENT`), and the head
    /// of the stderr line. The EVENTS stream has names of its own
    /// (`EventRecord.Kind`).
    public enum Kind: String, Sendable, CaseIterable {
        case start, stop, set, clear, delete, hit, best, restore, reload, typed, covered, coverage
    }
}
