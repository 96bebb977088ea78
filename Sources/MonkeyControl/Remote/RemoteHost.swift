/// A daemon on another host, reached as `systemctl -H` reaches one:
/// `ssh [USER@]HOST monkeyctl bridge`, whose standard input and output
/// are the connection. `ssh` is the command in `MONKEYCTL_SSH` when it is
/// set (a shell command line, as git's `GIT_SSH_COMMAND`), else `ssh` on
/// the `PATH`.
struct RemoteHost: Sendable, Equatable {
    /// `[USER@]HOST`, as given to `-H`: checked by `RemoteHost.check`.
    let destination: String
    /// `MONKEYCTL_SSH`, when set and not empty.
    let sshCommand: String?
    /// `--socket` with `-H`: the socket on the far side; nil for the far side's usual rules.
    let farSocket: String?
    /// What the ssh child gets: this process's environment.
    let environment: [String: String]

    /// The variables that name the host and the ssh command.
    static let hostVariable = "MONKEYCTL_HOST"
    static let sshVariable = "MONKEYCTL_SSH"

    init(destination: String, farSocket: String?, environment: [String: String]) {
        self.destination = destination
        self.farSocket = farSocket
        self.environment = environment
        let command = environment[Self.sshVariable] ?? ""
        sshCommand = command.allSatisfy(\.isWhitespace) ? nil : command
    }

    /// The command run on the far side: a line for its shell.
    var remoteCommand: String {
        var words = ["monkeyctl", "bridge"]
        if let farSocket { words += ["--socket", Self.quoted(farSocket)] }
        return words.joined(separator: " ")
    }

    /// The child's argument vector: `ssh HOST COMMAND`, or `MONKEYCTL_SSH`
    /// run by `sh -c` with HOST and COMMAND as its arguments (`"$@"`).
    var arguments: [String] {
        guard let sshCommand else { return ["ssh", destination, remoteCommand] }
        return ["/bin/sh", "-c", sshCommand + " \"$@\"", "monkeyctl-ssh", destination, remoteCommand]
    }

    /// Why `text` cannot be a destination, or nil: not empty, not an
    /// option (ssh would read `-oProxyCommand=...` as one), no blanks or
    /// control characters (one word for ssh and for `sh`).
    static func problem(with text: String) -> String? {
        if text.isEmpty { return "is empty" }
        if text.hasPrefix("-") { return "begins with '-'" }
        if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "holds a blank or a control character"
        }
        return nil
    }

    /// A word as a POSIX shell reads it back: as it is when that is safe.
    static func quoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=:@,+%")
        if !word.isEmpty && word.allSatisfy(safe.contains) { return word }
        var quoted = "'"
        for character in word {
            quoted += character == "'" ? "'\\''" : String(character)
        }
        return quoted + "'"
    }
}
