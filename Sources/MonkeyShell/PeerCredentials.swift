import CShim
import Glibc

/// Who is on the other end of a Unix socket, as the kernel reports it.
public struct PeerCredentials: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    public let groups: [UInt32]

    /// `getsockopt(SO_PEERCRED)` and `getsockopt(SO_PEERGROUPS)`.
    public static func of(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard monkey_peer_credentials(fd, &pid, &uid, &gid) == 0 else { throw SystemError("getsockopt SO_PEERCRED") }
        var capacity: Int32 = 64
        var count: Int32 = 0
        var groups: [gid_t] = []
        // A peer may have up to NGROUPS_MAX (65536) groups; most have a few.
        for _ in 0..<2 {
            groups = [gid_t](repeating: 0, count: Int(capacity))
            count = groups.withUnsafeMutableBufferPointer { monkey_peer_groups(fd, $0.baseAddress, capacity) }
            guard count > capacity else { break }
            capacity = count
        }
        let known = count > 0 ? Array(groups.prefix(Int(min(count, capacity)))) : []
        return PeerCredentials(pid: pid, uid: uid, gid: gid, groups: known)
    }

    public func isMember(of group: UInt32) -> Bool {
        gid == group || groups.contains(group)
    }
}
