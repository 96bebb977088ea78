import MonkeyCore
import MonkeyShell

/// The daemon's listening sockets: the control socket and, if configured,
/// the metrics listener; whether accepting is paused; and who the control
/// socket's clients are (`peer(of:)`).
struct Listeners {
    /// Which listener a connection came from.
    enum Kind {
        case control
        case metrics
    }

    let control: ListeningSocket
    /// Where the metrics are served over HTTP, if anywhere.
    let metrics: MetricsListener?
    /// Members of this group may change state, as root and the daemon's own user may.
    let privilegedGroup: UInt32?
    let ownUserID: UInt32
    /// The listeners are unwatched for a moment after accept failed (Daemon+Accept.swift).
    var isPaused = false

    func fd(_ kind: Kind) -> Int32? {
        switch kind {
        case .control: control.fd
        case .metrics: metrics?.fd
        }
    }

    /// Who the client is and whether it may change state: root, the
    /// daemon's own user and members of its group may (monkeyd(8), ACCESS
    /// CONTROL). A client whose credentials cannot be read may only read.
    func peer(of fd: Int32) -> Peer {
        guard let credentials = try? PeerCredentials.of(fd) else {
            return Peer(uid: UInt32.max, pid: 0, mayChange: false)
        }
        let mayChange =
            credentials.uid == 0 || credentials.uid == ownUserID
            || privilegedGroup.map { credentials.isMember(of: $0) } == true
        return Peer(uid: credentials.uid, pid: credentials.pid, mayChange: mayChange)
    }

    /// Who an HTTP client is: a reader, never allowed to change state.
    static let httpPeer = Peer(uid: UInt32.max, pid: 0, mayChange: false)
}
