import CShim
import Glibc

extension Syscalls {
    /// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)`: two connected
    /// ends, each read and written both ways.
    public static func socketPair() throws(SystemError) -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw SystemError("socketpair") }
        return (ends[0], ends[1])
    }

    /// `pipe2(O_CLOEXEC)`: the reading end, then the writing end.
    public static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard monkey_pipe_cloexec(&ends) == 0 else { throw SystemError("pipe2") }
        return (ends[0], ends[1])
    }

    /// How a child ended, as `waitpid(2)` reports it.
    public enum ChildEnding: Equatable, Sendable {
        case exited(Int32)
        case killed(signal: Int32)
    }

    /// `posix_spawnp(3)` of `arguments` (the program first, looked up on
    /// this process's `PATH` unless it holds a slash) with only
    /// `environment`, `input` as standard input, `output` as standard
    /// output and `errors` as standard error; in the child, `blocked`
    /// signals are blocked and every other one is back to its default
    /// action. The descriptors stay open here. Returns the child's pid.
    public static func spawn(
        _ arguments: [String], environment: [String: String], input: Int32, output: Int32, errors: Int32,
        blocked: [Int32]
    ) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in blocked { sigaddset(&mask, signal) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for word in argv + envp { free(word) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments.first ?? "", &actions, &attributes, argv, envp)
        guard result == 0 else { throw SystemError("posix_spawnp \(arguments.first ?? "")", errno: result) }
        return pid
    }

    /// `waitpid(pid, WNOHANG)` (or blocking when `hangs`): how the child
    /// ended, or nil while it runs. EINTR is retried.
    public static func reap(_ pid: pid_t, hangs: Bool) -> ChildEnding? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, hangs ? 0 : WNOHANG)
            if result == pid { break }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
        // WIFEXITED and WTERMSIG are macros Swift cannot see.
        if status & 0x7F == 0 { return .exited((status >> 8) & 0xFF) }
        return .killed(signal: status & 0x7F)
    }

    /// `kill(2)`
    public static func signal(_ pid: pid_t, _ signal: Int32) {
        _ = kill(pid, signal)
    }
}
