import MonkeyShell

/// `monkeyctl`, the command-line client of monkeyd, as a library: the
/// executable only calls `run`, and tests call it with their own console.
public enum MonkeyControl {
    /// monkeyctl's entry point: runs the command line and exits with its status.
    public static func main(arguments: [String]) -> Never {
        Syscalls.exit(run(arguments: arguments, environment: processEnvironment()))
    }

    /// Runs a command line against the process's stdout and stderr.
    ///
    /// - Parameters:
    ///   - arguments: as in `CommandLine.arguments`, the program name first.
    ///   - environment: the variables to honour (`MONKEYD_SOCKET`, `NO_COLOR`, the XDG paths).
    /// - Returns: the exit status (see `ExitCode`).
    public static func run(arguments: [String], environment: [String: String]) -> Int32 {
        Syscalls.lineBufferStandardStreams()
        return run(arguments: arguments, environment: environment, console: Console.standard())
    }

    /// Runs a command line, writing to `console`.
    public static func run(arguments: [String], environment: [String: String], console: Console) -> Int32 {
        defer { console.flush() }
        do {
            try perform(Array(arguments.dropFirst()), environment: environment, console: console)
            return ExitCode.success.rawValue
        } catch {
            for line in error.messageLines { console.printError(line) }
            return ExitCode.forFailure(error).rawValue
        }
    }

    /// The process environment, for `run`.
    public static func processEnvironment() -> [String: String] {
        Syscalls.environment()
    }

    private static func perform(_ arguments: [String], environment: [String: String], console: Console)
        throws(ControlFailure)
    {
        let invocation: Invocation
        do {
            invocation = try CommandLineParser.parse(arguments)
        } catch {
            throw .usage(error)
        }
        let connectors = try connectors(for: invocation, environment: environment)
        var formatter = HumanFormatter(
            usesColor: HumanFormatter.usesColor(outputIsTerminal: console.isOutputTerminal, environment: environment))
        if case .events = invocation.command { formatter.countsEvents = true }
        var runner = Runner(
            invocation: invocation, connectors: connectors, console: console, formatter: formatter,
            environment: environment)
        try runner.run()
    }

    /// Where the daemons are: each `-H` host (or `MONKEYCTL_HOST`'s),
    /// `--socket` naming the socket there; else the socket here, by
    /// `--socket`, `MONKEYD_SOCKET` and the defaults. `bridge` is always
    /// the far end: it never goes on to another host.
    private static func connectors(for invocation: Invocation, environment: [String: String]) throws(ControlFailure)
        -> [Connector]
    {
        var hosts = invocation.hosts
        if hosts.isEmpty, invocation.command.reachesDaemon, let host = environment[RemoteHost.hostVariable],
            !host.isEmpty
        {
            if let problem = RemoteHost.problem(with: host) {
                throw .usage(
                    UsageError(
                        "\(RemoteHost.hostVariable) needs [USER@]HOST, and '\(Visible.escaped(host))' \(problem)"))
            }
            hosts = [host]
        }
        guard hosts.isEmpty else {
            return hosts.map {
                .host(RemoteHost(destination: $0, farSocket: invocation.socketPath, environment: environment))
            }
        }
        let socketPath =
            invocation.socketPath
            ?? DefaultPaths.clientSocket(uid: Syscalls.effectiveUserID(), environment: { environment[$0] })
        return [.socket(socketPath)]
    }
}
