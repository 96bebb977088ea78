/// Where sessions are kept durable: the one seam between the engine and the
/// disk. The engine calls it before acknowledging a change; an error means
/// the change is not made and the client gets `ERR storage-error`.
public protocol SessionStore: AnyObject {
    /// Makes the session's settings and state durable.
    func save(_ snapshot: SessionSnapshot) throws(StorageError)
    /// Drops the session's entries and saves its new state, durably.
    func clear(_ snapshot: SessionSnapshot) throws(StorageError)
    /// Removes the session and its entries.
    func delete(_ name: SessionName) throws(StorageError)
    /// Where the entries of a saved or restored session go; nil if they are
    /// not kept. The engine asks once and keeps the answer, so that a tick
    /// does not look the session up by name.
    func appender(for name: SessionName) -> (any EntryAppender)?
    /// Records an entry that `name` typed before the id its appender asked
    /// to see next (see `EntryAppender.append`): most entries, which then
    /// reach the store and not each session's own bookkeeping.
    func record(_ entry: Entry, of name: SessionName)
}

/// One session's way into the store for its typed entries.
public protocol EntryAppender: AnyObject {
    /// Records an entry, just typed by `session`; it reaches the disk at the
    /// next sync. The session is passed so that a store can reserve ids
    /// ahead and compact the file from the retained log.
    ///
    /// Returns the id of the next entry it must see itself; the entries
    /// before that one go to `SessionStore.record`. With thousands of
    /// sessions, reaching each one's bookkeeping at every tick was a cache
    /// miss per entry. After the store saves or clears the session, or the
    /// configuration is reloaded, the engine shows it the next entry again.
    func append(_ entry: Entry, to session: Session) -> UInt64
}

/// Why a change could not be made durable, in words for the operator.
public struct StorageError: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// A store that keeps nothing: for tests of the engine and for runs that
/// need no durability.
public final class EphemeralStore: SessionStore {
    public init() {}
    public func save(_ snapshot: SessionSnapshot) throws(StorageError) {}
    public func clear(_ snapshot: SessionSnapshot) throws(StorageError) {}
    public func delete(_ name: SessionName) throws(StorageError) {}
    public func appender(for name: SessionName) -> (any EntryAppender)? { nil }
    public func record(_ entry: Entry, of name: SessionName) {}
}
