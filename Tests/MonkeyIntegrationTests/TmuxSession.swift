import Foundation
import Glibc

/// A terminal a person would use, for tests of full-screen programs: a
/// detached tmux session of a fixed size on a private server, driven with
/// `send-keys` and read with `capture-pane`, as a person types and sees.
/// Waiting is polling with a deadline, never a sleep.
final class TmuxSession {
    /// Where the tests find tmux; nil when it is not installed.
    static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static var isAvailable: Bool { executable != nil }

    let directory = TemporaryDirectory()
    private let server: String
    private var configuration: String { directory.path + "/tmux.conf" }
    static let target = "top"

    /// Starts `script` (run by /bin/sh in `directory`) in a new detached
    /// session of `columns` × `rows`.
    init(columns: Int, rows: Int, script: String, environment: [String: String] = [:]) throws {
        server = directory.path + "/tmux.sock"
        let scriptPath = directory.path + "/pane.sh"
        // The pane stays, showing what the script left, until the server is killed.
        try ("cd '\(directory.path)'\n" + script + "\nexec sleep 600\n").write(
            toFile: scriptPath, atomically: true, encoding: .utf8)
        var environment = environment
        environment["PATH"] = environment["PATH"] ?? "/usr/bin:/bin"
        environment["HOME"] = directory.path
        environment["LANG"] = "C.UTF-8"
        try "".write(toFile: configuration, atomically: true, encoding: .utf8)
        try run(
            [
                "new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", Self.target,
                "/bin/sh " + scriptPath,
            ],
            environment: environment)
    }

    deinit {
        do { try run(["kill-server"]) } catch { FileHandle.standardError.write(Data("KILL FAILED \(error)\n".utf8)) }
    }

    /// `tmux -S SOCKET -f CONFIGURATION -u ARGUMENTS`; returns stdout.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        guard let executable = Self.executable else { throw TestFailure("tmux is not installed") }
        let process = Process()
        // Foundation learns that a child ended when a socket it gave the
        // child closes; the tmux server new-session forks would keep it
        // open for good. bash closes every descriptor but 0 to 2 first.
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [
                "-c",
                #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; ((fd > 2)) && eval "exec $fd>&-"; done 2>/dev/null; exec "$0" "$@""#,
                executable, "-S", server, "-f", configuration, "-u",
            ] + arguments
        if let environment { process.environment = environment }
        // Files, not pipes: the server that new-session starts inherits
        // them and would hold a pipe open, so that its end never came.
        let outputPath = directory.path + "/tmux.out"
        let errorPath = directory.path + "/tmux.err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath), let error = FileHandle(forWritingAtPath: errorPath)
        else { throw TestFailure("cannot write in \(directory.path)") }
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        // A child inherits its parent thread's signal mask, and the test
        // runner's worker threads block most signals: a tmux server started
        // with them blocked never finishes a kill-server, and it and its
        // pane (top) outlive the test. Nothing is blocked while spawning.
        var none = sigset_t()
        sigemptyset(&none)
        var previous = sigset_t()
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
        process.waitUntilExit()
        try? output.close()
        try? error.close()
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        let errorData = FileManager.default.contents(atPath: errorPath) ?? Data()
        guard process.terminationStatus == 0 else {
            throw TestFailure("tmux \(arguments): \(String(decoding: errorData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// What the pane shows, one string per row (trailing spaces cut).
    func screen() throws -> [String] {
        var lines = try run(["capture-pane", "-p", "-t", Self.target])
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The pane with its colours and attributes, as escape sequences.
    func screenWithAttributes() throws -> String {
        try run(["capture-pane", "-p", "-e", "-t", Self.target])
    }

    /// Presses keys by tmux's names (`Up`, `Enter`, `Space`, `C-c`, `q`).
    func press(_ keys: String...) throws {
        try run(["send-keys", "-t", Self.target] + keys)
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", Self.target, "-x", String(columns), "-y", String(rows)])
    }

    /// Polls the screen until `condition` holds; fails with what it showed last.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Double = 15, _ condition: ([String]) -> Bool
    ) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String] = []
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(20_000)  // polling with a deadline
        }
        throw TestFailure(
            "the screen never showed \(what); it shows:\n" + last.joined(separator: "\n") + "\n" + paneProcesses())
    }

    /// The pane's processes and where each thread waits (its kernel
    /// function and system call), for a failure: a program that stopped
    /// redrawing is either blocked, and this names where, or not running.
    func paneProcesses() -> String {
        guard
            let panePID = try? run(["display-message", "-p", "-t", Self.target, "#{pane_pid}"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        else { return "the pane's processes: unknown" }
        var report = ["the pane's processes (pid/tid state wchan syscall command):"]
        var pending = [panePID]
        while let pid = pending.popLast() {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for tid in tasks.sorted() {
                let task = "/proc/\(pid)/task/\(tid)"
                func read(_ name: String) -> String {
                    ((try? String(contentsOfFile: task + "/" + name, encoding: .utf8)) ?? "?")
                        .replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let state = read("stat").split(separator: ")").last?.split(separator: " ").first ?? "?"
                let command = read("cmdline").prefix(120)
                report.append("  \(pid)/\(tid) \(state) \(read("wchan")) [\(read("syscall"))] \(command)")
                let children = read("children").split(separator: " ").map(String.init)
                pending.append(contentsOf: children)
            }
        }
        return report.joined(separator: "\n")
    }

    /// Waits until the file exists in `directory` and returns its text.
    func waitForFile(_ name: String, timeout: Double = 15) throws -> String {
        let path = directory.path + "/" + name
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") { return text }
            usleep(20_000)  // polling with a deadline
        }
        throw TestFailure(
            "\(name) was never written; the screen shows:\n" + ((try? screen()) ?? []).joined(separator: "\n") + "\n"
                + paneProcesses())
    }
}
