import Glibc

/// Where monkeyd keeps its socket, state and configuration when not told:
/// system paths as root, per-user paths (XDG) otherwise. `monkeyctl` finds
/// the socket by the same rules.
public struct DefaultPaths: Sendable, Equatable {
    public let socket: String
    public let stateDirectory: String
    public let configuration: String

    /// The system daemon's socket (as root, or under systemd).
    public static let systemSocket = "/run/monkeyd/monkeyd.sock"

    /// The socket a client uses: as the daemon's default, except that a user
    /// without a daemon of their own reaches the system daemon, as members
    /// of group monkeyd expect.
    public static func clientSocket(
        uid: UInt32, environment: (String) -> String?, isSocket: (String) -> Bool = Syscalls.isSocket
    ) -> String {
        let own = resolve(uid: uid, environment: environment).socket
        let isExplicit = environment("MONKEYD_SOCKET").map { !$0.isEmpty } ?? false
        if isExplicit || uid == 0 || isSocket(own) || !isSocket(systemSocket) { return own }
        return systemSocket
    }

    /// The defaults for this process's user and environment.
    public static func current() -> DefaultPaths {
        resolve(uid: Syscalls.effectiveUserID(), environment: Syscalls.environment)
    }

    /// Resolves the defaults from a uid and an environment lookup.
    public static func resolve(uid: UInt32, environment: (String) -> String?) -> DefaultPaths {
        let explicitSocket = environment("MONKEYD_SOCKET").flatMap { $0.isEmpty ? nil : $0 }
        if uid == 0 {
            return DefaultPaths(
                socket: explicitSocket ?? systemSocket, stateDirectory: "/var/lib/monkeyd",
                configuration: "/etc/monkeyd/monkeyd.conf")
        }
        let home = environment("HOME") ?? Syscalls.homeDirectory(of: uid) ?? "/"
        let runtime = environment("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/monkeyd-\(uid)"
        let state = environment("XDG_STATE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        let config = environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return DefaultPaths(
            socket: explicitSocket ?? runtime + "/monkeyd/monkeyd.sock", stateDirectory: state + "/monkeyd",
            configuration: config + "/monkeyd/monkeyd.conf")
    }
}
