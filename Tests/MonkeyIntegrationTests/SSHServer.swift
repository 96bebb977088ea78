import Foundation
import Glibc

/// A real OpenSSH server, Debian's `/usr/sbin/sshd`, on 127.0.0.1 and a
/// free port, as the user running the tests (root in CI), with its own
/// configuration and keys made here: what `monkeyctl -H` and `ssh HOST
/// monkeyctl bridge` are tested through. It accepts one user key (and
/// refuses `strangerKey`), gives remote commands a `PATH` that starts with
/// the built binaries, so that `monkeyctl` is found on the far side, and
/// takes `MONKEYD_SOCKET` from the client (`SetEnv` in `command`), so that
/// each connection can name the daemon it reaches. Stopped when released.
final class SSHServer {
    static let daemon = "/usr/sbin/sshd"
    static let client = "/usr/bin/ssh"
    static let keygen = "/usr/bin/ssh-keygen"
    static var isAvailable: Bool {
        [daemon, client, keygen].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let directory = TemporaryDirectory()
    private(set) var port: UInt16 = 0
    private var process: SpawnedProcess?
    private var outputReader: FileHandle?
    private var log = ErrorLog()

    /// The private key `authorized_keys` holds, and one it does not.
    var userKey: String { directory.path + "/user_ed25519" }
    var strangerKey: String { directory.path + "/stranger_ed25519" }

    /// `USER@127.0.0.1`: this process's user, the one sshd lets in.
    let destination: String

    /// What a sanitized build is run with (`make test-sanitizers`): passed
    /// on to the far side, where monkeyctl is the same build.
    static let sanitizerVariables = ["ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"]

    /// The `PATH` of remote commands: the built binaries first.
    static let remotePath = Binaries.directory + ":/usr/local/bin:/usr/bin:/bin"

    init() throws {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else {
            throw TestFailure("no name for uid \(geteuid())")
        }
        destination = String(cString: name) + "@127.0.0.1"
        for key in ["host_ed25519", "user_ed25519", "stranger_ed25519"] {
            let made = try runToExit(
                ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", directory.path + "/" + key],
                executable: Self.keygen)
            guard made.status == 0 else { throw TestFailure("ssh-keygen \(key): \(made.error)") }
        }
        try FileManager.default.copyItem(atPath: userKey + ".pub", toPath: directory.path + "/authorized_keys")
        // As root, sshd wants its privilege separation directory, which
        // systemd-tmpfiles makes at boot and a container may lack.
        if geteuid() == 0 && !FileManager.default.fileExists(atPath: "/run/sshd") {
            try FileManager.default.createDirectory(
                atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        // A port found free may be taken before sshd binds it: try another.
        for _ in 0..<3 {
            port = try freeTCPPort()
            if try start() { return }
        }
        throw TestFailure("sshd did not start: \(log.text)")
    }

    deinit {
        process?.terminate()
        outputReader?.readabilityHandler = nil
    }

    /// What sshd said on stderr (`-e`): connections, refusals.
    var output: String { log.text }

    /// Starts sshd on `port`; true once it listens, false if it could not
    /// bind (and exited), throws if it neither listens nor exits in time.
    private func start() throws -> Bool {
        // No PAM (it would want the system's configuration, and root), keys
        // only; StrictModes off because the keys lie in /tmp, which is
        // world-writable. SetEnv's PATH overrides sshd's default one. Its
        // SHLVL keeps bash, the remote shell, from reading the tester's
        // ~/.bashrc, as it does for a command run by sshd at level 1: a
        // `pyenv rehash` there printed to the commands' stderr when
        // sessions raced for its lock.
        let configuration = """
            ListenAddress 127.0.0.1:\(port)
            HostKey \(directory.path)/host_ed25519
            AuthorizedKeysFile \(directory.path)/authorized_keys
            PidFile \(directory.path)/sshd.pid
            UsePAM no
            StrictModes no
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            PermitUserEnvironment no
            AcceptEnv MONKEYD_SOCKET \(Self.sanitizerVariables.joined(separator: " "))
            SetEnv PATH=\(Self.remotePath) SHLVL=1
            MaxStartups 100
            LogLevel INFO

            """
        let path = directory.path + "/sshd_config"
        try configuration.write(toFile: path, atomically: true, encoding: .utf8)
        log = ErrorLog()
        let output = Pipe()
        let log = self.log
        outputReader?.readabilityHandler = nil
        outputReader = output.fileHandleForReading
        output.fileHandleForReading.readabilityHandler = { log.append($0.availableData) }
        // sshd re-executes itself for every connection: it needs its absolute path.
        process = try SpawnedProcess(
            Self.daemon, arguments: ["-D", "-e", "-f", path], environment: ["PATH": "/usr/sbin:/usr/bin:/bin"],
            output: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let listening = "Server listening on 127.0.0.1 port \(port)."
        let ended = eventually { log.text.contains(listening) || process?.isRunning != true }
        if log.text.contains(listening) { return true }
        guard ended else { throw TestFailure("sshd neither listens nor exits: \(log.text)") }
        return false
    }

    /// The ssh command line that reaches this server, for `MONKEYCTL_SSH`
    /// (with `destination` after it): no user configuration, this server's
    /// host key accepted and kept in the test's directory, `key` only, no
    /// questions, and `environment` sent for the remote command (sshd
    /// accepts `MONKEYD_SOCKET`), with the tester's sanitizer options.
    func command(key: String? = nil, environment: [String: String] = [:]) -> [String] {
        var words = [
            Self.client, "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=\(directory.path)/known_hosts", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
            "-o", "IdentityAgent=none", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10", "-i", key ?? userKey, "-p",
            String(port),
        ]
        var environment = environment
        for name in Self.sanitizerVariables where environment[name] == nil {
            environment[name] = ProcessInfo.processInfo.environment[name]
        }
        if !environment.isEmpty {
            words += [
                "-o",
                "SetEnv="
                    + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
            ]
        }
        return words
    }

    /// An ssh configuration in which each name of `hosts` is this server,
    /// reached with the user key (or `keys[name]`), its remote commands
    /// given `MONKEYD_SOCKET` = the name's socket (none when nil): several
    /// hosts for `monkeyctl -H`, one daemon behind each. Returns
    /// `MONKEYCTL_SSH`, `ssh -F` that file.
    func hostsConfiguration(_ hosts: [String: String?], keys: [String: String] = [:]) throws -> String {
        let path = directory.path + "/ssh_config_" + hosts.keys.sorted().joined(separator: "_")
        var text = ""
        for name in hosts.keys.sorted() {
            var environment: [String] = []
            if let socket = hosts[name] ?? nil { environment.append("MONKEYD_SOCKET=\(socket)") }
            for variable in Self.sanitizerVariables {
                if let value = ProcessInfo.processInfo.environment[variable] {
                    environment.append("\(variable)=\"\(value)\"")
                }
            }
            text += "Host \(name)\n    HostName 127.0.0.1\n    Port \(port)\n    HostKeyAlias monkeyd-test-sshd\n"
            text += "    IdentityFile \(keys[name] ?? userKey)\n"
            if !environment.isEmpty { text += "    SetEnv " + environment.joined(separator: " ") + "\n" }
        }
        text += "Host *\n    User \(destination.split(separator: "@")[0])\n    StrictHostKeyChecking no\n"
        text += "    UserKnownHostsFile \(directory.path)/known_hosts\n    BatchMode yes\n    IdentitiesOnly yes\n"
        text += "    IdentityAgent none\n    LogLevel ERROR\n    ConnectTimeout 10\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return "\(Self.client) -F \(Self.quoted(path))"
    }

    /// `command` as one line for a shell, as `MONKEYCTL_SSH` holds it.
    func commandLine(key: String? = nil, environment: [String: String] = [:]) -> String {
        command(key: key, environment: environment).map(Self.quoted).joined(separator: " ")
    }

    /// A word as a POSIX shell reads it back: as it is when that is safe.
    static func quoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=:@,+%")
        if !word.isEmpty && word.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Starts `ssh ... destination remoteCommand` with `input` as its
    /// standard input (or /dev/null), its output read as monkeyctl's is.
    func launch(_ remoteCommand: String, key: String? = nil, environment: [String: String] = [:], input: Pipe? = nil)
        throws -> MonkeyctlProcess
    {
        let command = command(key: key, environment: environment)
        return try MonkeyctlProcess(
            Array(command.dropFirst()) + [destination, remoteCommand], input: input, executable: command[0])
    }

    /// Runs `remoteCommand` over ssh to the end.
    func run(_ remoteCommand: String, key: String? = nil, environment: [String: String] = [:]) throws
        -> MonkeyctlResult
    {
        try launch(remoteCommand, key: key, environment: environment).finish()
    }
}

/// A child started with `posix_spawn(3)` and reaped with `waitpid(2)`
/// here: Foundation's `Process` takes a child that closes every inherited
/// descriptor, as sshd does as it starts, for one that ended, and then
/// waits for it in the one thread that notices every child's end, so that
/// no other `Process` of the test run would be seen to end.
final class SpawnedProcess {
    let pid: pid_t
    private var status: Int32?

    /// Starts `path` with `arguments` and only `environment`, standard
    /// input /dev/null, standard output and error `output`, no signal blocked.
    init(_ path: String, arguments: [String], environment: [String: String], output: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for word in argv + envp { free(word) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure("posix_spawn \(path): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    deinit { terminate() }

    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = raw
        return false
    }

    /// SIGTERM, and waits for it to end.
    func terminate() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status = raw
    }
}
