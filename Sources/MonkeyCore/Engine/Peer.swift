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
