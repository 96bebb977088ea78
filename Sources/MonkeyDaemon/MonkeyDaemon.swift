import Dispatch
import MonkeyCore
import MonkeyShell
import MonkeySystemd

/// monkeyd's entry point: parse the command line, set up, run forever.
public enum MonkeyDaemon {
    public static func main(arguments: [String]) -> Never {
        Syscalls.lineBufferStandardStreams()
        // Before any thread exists, so that all inherit the mask (see blockSignals)
        // and allocate from one heap (see useOneMallocArena).
        Syscalls.blockSignals(Daemon.handledSignals)
        Syscalls.useOneMallocArena()
        let action: DaemonOptions.Action
        do {
            action = try DaemonOptions.parse(arguments, defaults: .current())
        } catch {
            Syscalls.printError("monkeyd: \(error)\nTry 'monkeyd --help'.")
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
                Syscalls.printError("monkeyd: \(error.message)")
                Syscalls.exit(1)
            }
            // Not dispatchMain(): on Linux it waits in sigsuspend with every
            // signal unblocked, which steals SIGTERM and SIGHUP from the signalfd.
            Syscalls.parkForever()
        }
    }

    static func start(_ options: DaemonOptions) throws(StartupError) -> Daemon {
        let configuration = try loadConfiguration(options)
        // Every client costs a descriptor; the default soft limit (often 1024) can be below max_clients.
        let openFiles = Syscalls.raiseOpenFileLimit()
        if openFiles > 0 && openFiles < UInt64(configuration.limits.maximumClients) + 32 {
            Syscalls.printError(
                "monkeyd: warning: only \(openFiles) open files allowed (RLIMIT_NOFILE); "
                    + "max_clients = \(configuration.limits.maximumClients) cannot all be served")
        }
        do {
            try Syscalls.makeDirectories(options.stateDirectory, mode: 0o750)
        } catch {
            throw StartupError("cannot create the state directory", error)
        }
        let events: EventSink = JournalSink.isReachable ? JournalSink() : StandardErrorSink()
        let descriptors: [Systemd.PassedDescriptor]
        do {
            descriptors = try Systemd.listenDescriptors()
        } catch {
            throw StartupError("cannot read the sockets passed by systemd: \(error)")
        }
        let passed = try PassedSockets.sort(descriptors)
        // Bind first: a second daemon on the same socket stops here, before it touches the state.
        let listener = try openListener(options, configuration, passed: passed)
        let metricsListener: MetricsListener?
        let store: FileStore
        do {
            metricsListener = try openMetricsListener(configuration, passed: passed)
            store = try openStore(options, configuration, events: events)
        } catch {
            if let path = listener.createdPath { try? Syscalls.unlink(path) }
            throw error
        }
        return try Daemon(
            options: options, configuration: configuration, listener: listener, metricsListener: metricsListener,
            events: events, store: store, restoring: store.loadedSessions)
    }

    /// The control socket systemd passed (see `PassedSockets`), else one
    /// we bind ourselves.
    static func openListener(
        _ options: DaemonOptions, _ configuration: Configuration, passed: PassedSockets
    ) throws(StartupError) -> ListeningSocket {
        if let fd = passed.control {
            let isUsable: Bool
            do {
                isUsable = try Systemd.isListeningUnixSocket(fd)
            } catch {
                throw StartupError("cannot inspect the socket passed by systemd: \(error)")
            }
            guard isUsable else {
                throw StartupError("the socket passed by systemd (fd \(fd)) is not a listening Unix stream socket")
            }
            return try ListeningSocket.adopt(fd)
        }
        return try ListeningSocket.create(
            path: options.socketPath, mode: configuration.socketMode,
            group: Syscalls.groupID(named: configuration.socketGroup))
    }

    /// The metrics listener: the socket systemd passed named `metrics`
    /// (see `PassedSockets`), else one bound to `metrics_listen`, else none.
    static func openMetricsListener(_ configuration: Configuration, passed: PassedSockets)
        throws(StartupError) -> MetricsListener?
    {
        if let fd = passed.metrics { return try MetricsListener.adopt(fd) }
        return try configuration.metricsListen.map { address throws(StartupError) in
            try MetricsListener.create(address)
        }
    }

    /// Reads the configuration file; a missing default file means defaults.
    static func loadConfiguration(_ options: DaemonOptions) throws(StartupError) -> Configuration {
        let bytes: [UInt8]?
        do {
            bytes = try Syscalls.readWholeFile(options.configurationPath, limit: 16 << 20)
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
