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

    /// Sets the daemon up, in an order that leaves nothing behind when it
    /// cannot start: the configuration; the control socket, checked first
    /// (a second daemon on the same socket stops here, before it creates or
    /// touches anything of the state); then the metrics listener, the state
    /// directory and the store. A failure after the bind removes the
    /// socket it created. `events` replaces the journal or stderr (tests
    /// that run the daemon in process keep its lines out of their output).
    static func start(_ options: DaemonOptions, events: EventSink? = nil) throws(StartupError) -> Daemon {
        let configuration = try ConfigurationFile.load(options)
        // Every client costs a descriptor; the default soft limit (often 1024) can be below max_clients.
        let openFiles = Syscalls.raiseOpenFileLimit()
        if openFiles > 0 && openFiles < UInt64(configuration.limits.maximumClients) + 32 {
            Syscalls.printError(
                "monkeyd: warning: only \(openFiles) open files allowed (RLIMIT_NOFILE); "
                    + "max_clients = \(configuration.limits.maximumClients) cannot all be served")
        }
        let sink: EventSink = events ?? (JournalSink.isReachable ? JournalSink() : StandardErrorSink())
        let descriptors: [Systemd.PassedDescriptor]
        do {
            descriptors = try Systemd.listenDescriptors()
        } catch {
            throw StartupError("cannot read the sockets passed by systemd: \(error)")
        }
        let passed = try PassedSockets.sort(descriptors)
        let listener = try openListener(options, configuration, passed: passed)
        let metricsListener: MetricsListener?
        let store: FileStore
        do {
            metricsListener = try openMetricsListener(configuration, passed: passed)
            store = try openStore(options, configuration, sink: sink)
        } catch {
            if let path = listener.createdPath { try? Syscalls.unlink(path) }
            throw error
        }
        return try Daemon(
            options: options, configuration: configuration, listener: listener, metricsListener: metricsListener,
            sink: sink, store: store, restoring: store.loadedSessions)
    }

    /// The control socket systemd passed (see `PassedSockets`), else one
    /// we bind ourselves.
    static func openListener(
        _ options: DaemonOptions, _ configuration: Configuration, passed: PassedSockets
    ) throws(StartupError) -> ListeningSocket {
        if let fd = passed.control {
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

    /// Opens the store in `<state-dir>/sessions`, creating the directories,
    /// and loads what it holds.
    static func openStore(_ options: DaemonOptions, _ configuration: Configuration, sink: EventSink)
        throws(StartupError) -> FileStore
    {
        do {
            try Syscalls.makeDirectories(options.stateDirectory, mode: 0o750)
        } catch {
            throw StartupError("cannot create the state directory", error)
        }
        let directory = options.stateDirectory + "/sessions"
        do {
            try Syscalls.makeDirectories(directory, mode: 0o750)
        } catch {
            throw StartupError("cannot create the session directory", error)
        }
        do {
            return try FileStore(
                directory: directory, syncInterval: configuration.syncInterval,
                journalLimit: configuration.journalSize, controlLogLimit: configuration.controlLogSize,
                retention: configuration.limits.maximumEntries
            ) { priority, message in
                sink.log(priority, message)
            }
        } catch {
            throw StartupError(error.message)
        }
    }
}
