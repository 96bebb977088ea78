import MonkeyShell

/// monkeyd's command line: where the socket, state and configuration are.
public struct DaemonOptions: Sendable, Equatable {
    public var socketPath: String
    public var stateDirectory: String
    public var configurationPath: String
    /// The configuration file was named on the command line, so it must exist.
    public var configurationIsExplicit = false

    public enum Action: Sendable, Equatable {
        case run(DaemonOptions)
        case help
        case version
    }

    public struct UsageError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static let usage = """
        Usage: monkeyd [--socket PATH] [--state-dir DIR] [--config FILE]

        The infinite-monkey typewriter daemon. Runs in the foreground; see monkeyd(8).

          --socket PATH     listen on PATH (default: $MONKEYD_SOCKET, else
                            \(DefaultPaths.systemSocket) as root,
                            $XDG_RUNTIME_DIR/monkeyd/monkeyd.sock otherwise)
          --state-dir DIR   keep sessions in DIR (default: /var/lib/monkeyd as root,
                            $XDG_STATE_HOME/monkeyd or ~/.local/state/monkeyd otherwise)
          --config FILE     read FILE (default: /etc/monkeyd/monkeyd.conf as root,
                            $XDG_CONFIG_HOME/monkeyd/monkeyd.conf otherwise; optional)
          -h, --help        show this help
          --version         show the version
        """

    public static func parse(_ arguments: [String], defaults: DefaultPaths) throws(UsageError) -> Action {
        var options = DaemonOptions(
            socketPath: defaults.socket, stateDirectory: defaults.stateDirectory,
            configurationPath: defaults.configuration)
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.isEmpty else {
                    throw UsageError(description: "\(name) needs a value")
                }
                return next
            }
            switch name {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--socket": options.socketPath = try value()
            case "--state-dir": options.stateDirectory = try value()
            case "--config":
                options.configurationPath = try value()
                options.configurationIsExplicit = true
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return .run(options)
    }
}
