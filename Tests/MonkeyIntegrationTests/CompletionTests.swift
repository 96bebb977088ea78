import Foundation
import Testing

/// The shell completions of packaging/completions, each loaded in its own
/// shell, completing subcommands, options and the daemon's session names.
@Suite("Shell completions")
struct CompletionTests {
    static let directory = JournalTests.repository.appendingPathComponent("packaging/completions").path

    /// Runs `script` in `shell` with monkeyctl on PATH pointed at `daemon`.
    static func run(_ shell: String, _ arguments: [String], daemon: DaemonProcess) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = [
            "PATH": Binaries.directory + ":/usr/bin:/bin", "MONKEYD_SOCKET": daemon.socketPath,
            "HOME": daemon.directory.path, "XDG_CONFIG_HOME": daemon.directory.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(shell) failed")
        return String(decoding: data, as: UTF8.self)
    }

    static func daemonWithSessions() throws -> DaemonProcess {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START alpha interval=1h")
        _ = try daemon.request("START be.ta interval=1h")
        return daemon
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/bin/bash")))
    func bash() throws {
        let daemon = try CompletionTests.daemonWithSessions()
        let script = """
            source ./monkeyctl.bash
            show() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _monkeyctl; echo "${COMPREPLY[*]}"; }
            show monkeyctl st
            show monkeyctl stop ''
            show monkeyctl tail alpha -
            show monkeyctl --socket "$MONKEYD_SOCKET" delete b
            show monkeyctl o
            show monkeyctl replay --
            show monkeyctl odds ''
            show monkeyctl odds --target x --m
            show monkeyctl me
            show monkeyctl metrics -
            show monkeyctl w
            show monkeyctl wait alpha --
            show monkeyctl events --session ''
            show monkeyctl events -
            show monkeyctl start s --s
            show monkeyctl t
            show monkeyctl top -
            show monkeyctl top ''
            """
        let lines = try CompletionTests.run("/bin/bash", ["-c", script], daemon: daemon).split(separator: "\n")
        #expect(
            lines == [
                "start stop status", "alpha be.ta", "--socket -H --host --json --help -n -f --follow --all", "be.ta",
                "odds",
                "--socket --host --json --help --seed --id --monkeys --alphabet",
                "--socket -H --host --json --help --target --monkeys --interval --alphabet --corpus --chunk --coverage",
                "--monkeys", "metrics", "--socket -H --host --json --help", "wait",
                "--socket --host --json --help --hit --stopped --best --coverage --timeout",
                "alpha be.ta",
                "--socket -H --host --json --help -f --follow --after --session", "--socket --seed",
                "tail top", "--socket -H --host --help --once -d --delay",
                "--socket -H --host --help --once -d --delay",
            ])
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/fish")))
    func fish() throws {
        let daemon = try CompletionTests.daemonWithSessions()
        let script = """
            source ./monkeyctl.fish
            complete -C 'monkeyctl st' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl stop ' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl tail --f' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl r' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl replay --' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl odds --i' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl me' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl metrics --' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl wait --' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl events --session ' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl to' | string replace -r '\\t.*' ''
            complete -C 'monkeyctl top --' | string replace -r '\\t.*' ''
            """
        let lines = try CompletionTests.run("/usr/bin/fish", ["--no-config", "-c", script], daemon: daemon)
            .split(separator: "\n")
        #expect(
            lines == [
                "start", "status", "stop", "alpha", "be.ta", "--follow", "replay", "--alphabet", "--help", "--host",
                "--id", "--json", "--monkeys", "--seed", "--socket", "--interval", "metrics", "--help", "--host",
                "--json", "--socket", "--best", "--coverage", "--help", "--hit", "--host", "--json", "--socket",
                "--stopped",
                "--timeout", "alpha", "be.ta", "top", "--delay", "--help", "--host", "--once", "--socket",
            ])
    }

    /// zsh completion needs a line editor to run for real; the test loads it
    /// through compinit and fpath as zsh does, with _arguments and _describe
    /// replaced by stand-ins that print what they were given.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/zsh")))
    func zsh() throws {
        let daemon = try CompletionTests.daemonWithSessions()
        let script = """
            fpath=($PWD $fpath)
            autoload -Uz compinit && compinit -u -d "$HOME/zcompdump"
            print $_comps[monkeyctl]
            _describe() { print -l -- ${(P)${@[-1]}} }
            _arguments() { state=subcommand; return 1 }
            words=(monkeyctl); _monkeyctl >/dev/null
            _monkeyctl | cut -d: -f1 | tr '\\n' ' '; print
            words=(monkeyctl stop ''); _monkeyctl_sessions
            _arguments() { [[ $1 == -C ]] && { state=argument; return 1 }; print -l -- "$@" | cut -d'[' -f1 | tr '\\n' ' '; print }
            words=(top ''); _monkeyctl
            """
        let lines = try CompletionTests.run("/usr/bin/zsh", ["-f", "-c", script], daemon: daemon).split(separator: "\n")
        #expect(
            lines == [
                "_monkeyctl",
                "start stop set clear delete status log tail events wait coverage corpora top ping hello version metrics odds "
                    + "replay help ",
                "alpha",
                "be.ta",
                "--socket (-H --host)-H (-H --host)--host (-h --help)-h (-h --help)--help --once (-d --delay)-d "
                    + "(-d --delay)--delay ",
            ])
    }
}
