import MonkeyShell

/// The daemon's listening socket: passed by systemd (socket activation) or
/// created here, after making sure no live daemon answers on the path.
struct ListeningSocket {
    let fd: Int32
    /// The path this daemon bound and must remove at exit; nil when the
    /// socket came from systemd, which owns it.
    let createdPath: String?

    /// Adopts the socket systemd passed.
    static func adopt(_ fd: Int32) throws(StartupError) -> ListeningSocket {
        ListeningSocket(fd: try PassedSockets.adopt(fd, as: .control), createdPath: nil)
    }

    /// Binds and listens on `path` with `mode` and, if it exists, `group`.
    static func create(path: String, mode: UInt32, group: UInt32?) throws(StartupError) -> ListeningSocket {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !directory.isEmpty {
            do {
                try Syscalls.makeDirectories(directory, mode: Syscalls.effectiveUserID() == 0 ? 0o755 : 0o700)
            } catch {
                throw StartupError("cannot create the socket's directory", error)
            }
        }
        try removeStaleSocket(at: path)
        let fd: Int32
        do {
            fd = try Syscalls.unixStreamSocket(nonBlocking: true)
        } catch {
            throw StartupError("cannot create a socket", error)
        }
        do {
            try bindPrivately(fd, path: path, mode: mode)
            var finalMode = mode & 0o777
            if let group {
                // A socket left with the daemon's own group must not open to that group instead.
                do { try Syscalls.changeGroup(path, group) } catch { finalMode &= ~0o070 }
            }
            try Syscalls.changeMode(path, UInt32(finalMode))
            try Syscalls.listen(fd, backlog: 511)
        } catch {
            Syscalls.close(fd)
            throw StartupError("cannot listen on \(path)", error)
        }
        return ListeningSocket(fd: fd, createdPath: path)
    }

    /// Binds with a umask that leaves only the owner's part of the mode, so
    /// the socket never exists with wider permissions than it ends up
    /// with, not even between bind and chmod (nor with its group's before
    /// chown gives it the configured group).
    private static func bindPrivately(_ fd: Int32, path: String, mode: UInt32) throws(SystemError) {
        let previousMask = Syscalls.setUmask(UInt32(~(mode & 0o700) & 0o777))
        defer { Syscalls.setUmask(previousMask) }
        try Syscalls.bind(fd, path: path)
    }

    /// Removes a socket file left by a daemon that died, refusing if a live
    /// daemon still answers on it.
    private static func removeStaleSocket(at path: String) throws(StartupError) {
        guard Syscalls.exists(path) else { return }
        guard Syscalls.isSocket(path) else {
            throw StartupError("\(path) exists and is not a socket; remove it or choose another --socket")
        }
        do {
            _ = try ClientConnection(path: path)
            throw StartupError("another monkeyd is already listening on \(path)")
        } catch let error as SystemError {
            guard error.isConnectionRefused else {
                throw StartupError("cannot check the existing socket \(path)", error)
            }
        } catch let error as StartupError {
            throw error
        } catch {
            throw StartupError("cannot check the existing socket \(path): \(error)")
        }
        do {
            try Syscalls.unlink(path)
        } catch {
            throw StartupError("cannot remove the stale socket", error)
        }
    }
}
