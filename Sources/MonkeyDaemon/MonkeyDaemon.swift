import Dispatch
import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// monkeyd's entry point: parse the command line, set up, run forever.
public enum MonkeyDaemon {
    public static func main(arguments: [String]) -> Never {
        Syscalls.lineBufferStandardStreams()
        let action: DaemonOptions.Action
        do {
            action = try DaemonOptions.parse(arguments, defaults: .current())
        } catch {
            printError("monkeyd: \(error)\nTry 'monkeyd --help'.")
            Syscalls.exit(2)
        }
        switch action {
        case .help:
            print(DaemonOptions.usage)
            Syscalls.exit(0)
        case .version:
            print("monkeyd \(Engine.version) (protocol \(Engine.protocolVersion))")
            Syscalls.exit(0)
        case .run(let options):
            do {
                let daemon = try start(options)
                daemon.start()
            } catch {
                printError("monkeyd: \(error.message)")
                Syscalls.exit(1)
            }
            dispatchMain()
        }
    }

    static func start(_ options: DaemonOptions) throws(StartupError) -> Daemon {
        let configuration = try loadConfiguration(options)
        do {
            try Syscalls.makeDirectories(options.stateDirectory, mode: 0o750)
        } catch {
            throw StartupError("cannot create the state directory", error)
        }
        let events = StandardErrorSink()
        let (store, restored) = try openStore(options, configuration, events: events)
        let listener = try openListener(options, configuration)
        return try Daemon(
            options: options, configuration: configuration, listener: listener, events: events, store: store,
            restoring: restored)
    }

    /// The socket systemd passed, else one we bind ourselves.
    static func openListener(_ options: DaemonOptions, _ configuration: Configuration) throws(StartupError)
        -> ListeningSocket
    {
        let passed: [Int32]
        do {
            passed = try Systemd.listenDescriptors()
        } catch {
            throw StartupError("cannot read the sockets passed by systemd: \(error)")
        }
        if let fd = passed.first {
            return try ListeningSocket.adopt(fd)
        }
        return try ListeningSocket.create(
            path: options.socketPath, mode: configuration.socketMode,
            group: Syscalls.groupID(named: configuration.socketGroup))
    }

    /// Reads the configuration file; a missing default file means defaults.
    static func loadConfiguration(_ options: DaemonOptions) throws(StartupError) -> Configuration {
        let bytes: [UInt8]?
        do {
            bytes = try Syscalls.readFile(options.configurationPath)
        } catch {
            throw StartupError("cannot read the configuration", error)
        }
        guard let bytes else {
            if options.configurationIsExplicit {
                throw StartupError("the configuration file \(options.configurationPath) does not exist")
            }
            return Configuration()
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StartupError("\(options.configurationPath) is not valid UTF-8")
        }
        do {
            return try Configuration.parse(text)
        } catch {
            throw StartupError("\(options.configurationPath): \(error)")
        }
    }
}
