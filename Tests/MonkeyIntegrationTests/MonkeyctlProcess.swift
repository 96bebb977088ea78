import Foundation
import Glibc
import MonkeyShell

/// What a finished run of `monkeyctl` left behind.
struct MonkeyctlResult: CustomStringConvertible {
    let status: Int32
    /// Everything written to stdout, including lines already read with `readLine`.
    let output: String
    let error: String

    /// Stdout as lines, without their newlines.
    var lines: [String] { Self.lines(output) }
    /// Stderr as lines, without their newlines.
    var errorLines: [String] { Self.lines(error) }

    var description: String {
        "status \(status), stdout \(Self.shortened(output)), stderr \(Self.shortened(error))"
    }

    /// Long output cut in the middle, so that a failure stays readable.
    private static func shortened(_ text: String) -> String {
        guard text.count > 600 else { return text.debugDescription }
        return (text.prefix(300) + " […] " + text.suffix(300)).debugDescription
    }

    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// The built `monkeyctl` as a child process: stdout and stderr come through
/// pipes (stdout optionally through a pseudo-terminal) and are read with
/// `poll(2)` and a deadline, so that a test never hangs on a stuck client.
final class MonkeyctlProcess {
    let process = Process()
    private let outputFD: Int32
    private let errorFD: Int32
    private var output: [UInt8] = []
    private var error: [UInt8] = []
    /// How much of `output` `readLine` has handed out.
    private var consumed = 0
    private var isOutputAtEnd = false
    private var isErrorAtEnd = false
    /// Keeps the pipes (and the terminal) open as long as the process is watched.
    private let keepAlive: [AnyObject]

    /// Starts `monkeyctl arguments`. The environment is `environment` plus
    /// `PATH`, nothing else, so that the tester's own `MONKEYD_SOCKET`,
    /// `NO_COLOR` or `TERM` cannot change the outcome. Standard input is
    /// `input`'s reading end, or /dev/null. `executable` runs another program
    /// the same way (ssh, running monkeyctl on the far side).
    init(
        _ arguments: [String], environment: [String: String] = [:], terminal: MonkeyctlTerminal? = nil,
        input: Pipe? = nil, executable: String = Binaries.monkeyctl
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = environment
        if environment["PATH"] == nil {
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        }
        process.environment = environment
        process.standardInput = input ?? FileHandle.nullDevice
        let errorPipe = Pipe()
        process.standardError = errorPipe
        errorFD = errorPipe.fileHandleForReading.fileDescriptor
        if let terminal {
            process.standardOutput = terminal.replica
            outputFD = terminal.controller
            keepAlive = [errorPipe, terminal]
        } else {
            let outputPipe = Pipe()
            process.standardOutput = outputPipe
            outputFD = outputPipe.fileHandleForReading.fileDescriptor
            keepAlive = [errorPipe, outputPipe]
        }
        try Syscalls.setNonBlocking(outputFD)
        try Syscalls.setNonBlocking(errorFD)
        // A child inherits its parent thread's signal mask, and the test
        // runner's worker threads block SIGINT: unblocked only while
        // spawning, so that monkeyctl gets SIGINT as it would from a shell.
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &interrupt, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs `monkeyctl arguments` to the end.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) throws
        -> MonkeyctlResult
    {
        try MonkeyctlProcess(arguments, environment: environment).finish(timeout: timeout)
    }

    var pid: Int32 { process.processIdentifier }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// The next line of stdout (without LF or the CR a terminal adds), or nil
    /// if none is complete before the deadline or the output ends.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = output[consumed...].firstIndex(of: 0x0A) {
                var line = output[consumed..<newline]
                if line.last == 0x0D { line = line.dropLast() }
                consumed = newline + 1
                return String(decoding: line, as: UTF8.self)
            }
            if isOutputAtEnd || Date() >= deadline { return nil }
            if !process.isRunning {
                drain()
                if output[consumed...].contains(0x0A) { continue }
                return nil
            }
            pump(until: deadline)
        }
    }

    /// Waits for the process to exit, reading its output meanwhile, and
    /// returns everything it wrote. Kills it and throws after the deadline.
    func finish(timeout: Double = 30) throws -> MonkeyctlResult {
        guard waitForExit(timeout: timeout) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            drain()
            throw TestFailure("monkeyctl did not exit within \(timeout) s; so far \(result(status: -1))")
        }
        return result(status: process.terminationStatus)
    }

    /// Whether the process exits before the deadline; its output is read meanwhile.
    func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else { return false }
            pump(until: deadline)
        }
        // Everything the child wrote is in the pipes by now.
        drain()
        return true
    }

    /// Whether the process is asleep in `read(2)` before the deadline, as
    /// `/proc/PID/syscall` shows: how a test knows that a signal sent now
    /// interrupts that read.
    func waitUntilBlockedInRead(timeout: Double = 10) -> Bool {
        // read(2) or ppoll(2), where monkeyctl waits for the daemon.
        #if arch(x86_64)
            let waits: Set<Substring> = ["0", "271"]
        #elseif arch(arm64)
            let waits: Set<Substring> = ["63", "73"]
        #else
            let waits: Set<Substring> = []
        #endif
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
            if let call = state.split(separator: " ").first, waits.contains(call) { return true }
            pump(until: Date().addingTimeInterval(0.002))
        }
        return false
    }

    private func result(status: Int32) -> MonkeyctlResult {
        let text = String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return MonkeyctlResult(status: status, output: text, error: String(decoding: error, as: UTF8.self))
    }

    /// Waits up to 20 ms (or the deadline) for output and reads what is there.
    private func pump(until deadline: Date) {
        var descriptors: [pollfd] = []
        if !isOutputAtEnd { descriptors.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
        if !isErrorAtEnd { descriptors.append(pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = max(0, min(20, Int32(deadline.timeIntervalSinceNow * 1000)))
        guard !descriptors.isEmpty else {
            // Both streams ended; only the exit status is still to come.
            _ = poll(nil, 0, milliseconds)
            return
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        drain()
    }

    /// Reads whatever is available now, without blocking.
    private func drain() {
        if !isOutputAtEnd { isOutputAtEnd = Self.readAvailable(outputFD, into: &output) }
        if !isErrorAtEnd { isErrorAtEnd = Self.readAvailable(errorFD, into: &error) }
    }

    /// Returns true at end of stream (EOF, or EIO from a terminal whose other side closed).
    private static func readAvailable(_ fd: Int32, into bytes: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try Syscalls.read(fd, into: buffer) }
            }
            switch result {
            case .success(.bytes(let count)): bytes.append(contentsOf: chunk[0..<count])
            case .success(.wouldBlock): return false
            case .success(.endOfFile), .failure: return true
            }
        }
    }
}

/// A pseudo-terminal to stand in for an interactive stdout, where
/// `monkeyctl` may colour its output. The test keeps the replica side
/// open too, so that what the child wrote stays readable after it exits.
final class MonkeyctlTerminal {
    let controller: Int32
    let replica: FileHandle

    // Glibc's Swift module leaves out the pty functions (they need
    // _XOPEN_SOURCE), so they are looked up in the C library at run time.
    private typealias Control = @convention(c) (Int32) -> Int32
    private typealias Open = @convention(c) (Int32) -> Int32
    private typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32

    init() throws {
        let library = dlopen(nil, RTLD_NOW)
        guard let open = dlsym(library, "posix_openpt"), let grant = dlsym(library, "grantpt"),
            let unlock = dlsym(library, "unlockpt"), let name = dlsym(library, "ptsname_r")
        else { throw TestFailure("the C library has no pseudo-terminal functions") }
        controller = unsafeBitCast(open, to: Open.self)(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard controller >= 0 else { throw TestFailure("posix_openpt failed: errno \(errno)") }
        var path = [CChar](repeating: 0, count: 128)
        guard unsafeBitCast(grant, to: Control.self)(controller) == 0,
            unsafeBitCast(unlock, to: Control.self)(controller) == 0,
            unsafeBitCast(name, to: Name.self)(controller, &path, path.count) == 0
        else {
            Glibc.close(controller)
            throw TestFailure("cannot set up the pseudo-terminal: errno \(errno)")
        }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            Glibc.close(controller)
            throw TestFailure("cannot open the pseudo-terminal's replica: errno \(errno)")
        }
        replica = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { Glibc.close(controller) }
}

/// Runs `monkeyctl` against one daemon: `--socket` comes first.
struct MonkeyctlClient {
    let socketPath: String
    /// The daemon (real or fake) behind the socket, kept alive as long as the client.
    private let owner: AnyObject?

    init(_ daemon: DaemonProcess) {
        socketPath = daemon.socketPath
        owner = daemon
    }

    init(socketPath: String, owner: AnyObject? = nil) {
        self.socketPath = socketPath
        self.owner = owner
    }

    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> MonkeyctlResult {
        try run(arguments, environment: environment)
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> MonkeyctlResult {
        try MonkeyctlProcess.run(["--socket", socketPath] + arguments, environment: environment)
    }

    /// Starts session `s` with `settings` and a 1 ms interval, waits until
    /// it typed `count` entries, stops it and returns its log as protocol records.
    func typedEntries(_ daemon: DaemonProcess, _ settings: String..., count: Int) throws -> [[String: String]] {
        let started = try run(["start", "s", "--interval", "1ms"] + settings)
        guard started.status == 0 else { throw TestFailure("start failed: \(started)") }
        let typed = try eventually {
            try Int(fields(daemon.request("STATUS s")[0])["entries"] ?? "0") ?? 0 >= count
        }
        guard typed else { throw TestFailure("session s did not type \(count) entries") }
        _ = try daemon.request("STOP s")
        return try daemon.request("LOG s").dropLast().map(fields)
    }

    func launch(_ arguments: String..., environment: [String: String] = [:], terminal: MonkeyctlTerminal? = nil)
        throws -> MonkeyctlProcess
    {
        try launch(arguments, environment: environment, terminal: terminal)
    }

    func launch(_ arguments: [String], environment: [String: String] = [:], terminal: MonkeyctlTerminal? = nil)
        throws -> MonkeyctlProcess
    {
        try MonkeyctlProcess(["--socket", socketPath] + arguments, environment: environment, terminal: terminal)
    }
}

/// A stand-in for monkeyd on a temporary socket. The test plays the
/// daemon's side line by line, to see what `monkeyctl` sends and to answer
/// what a real daemon would not: a broken connection, a garbled line, a
/// stream that does not end.
final class MonkeyctlFakeDaemon {
    let directory = TemporaryDirectory()
    let socketPath: String
    private let listener: Int32

    init() throws {
        socketPath = directory.path + "/fake.sock"
        listener = try Syscalls.unixStreamSocket(nonBlocking: true)
        try Syscalls.bind(listener, path: socketPath)
        try Syscalls.listen(listener, backlog: 8)
    }

    deinit { Syscalls.close(listener) }

    var client: MonkeyctlClient { MonkeyctlClient(socketPath: socketPath, owner: self) }

    /// The next client connection, waited for up to the deadline.
    func accept(timeout: Double = 10) throws -> MonkeyctlFakeConnection {
        var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) == 1, let fd = try Syscalls.accept(listener) else {
            throw TestFailure("monkeyctl did not connect within \(timeout) s")
        }
        return MonkeyctlFakeConnection(fd: fd)
    }
}

/// The daemon's end of one connection to the fake daemon.
final class MonkeyctlFakeConnection {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var isAtEnd = false

    init(fd: Int32) {
        self.fd = fd
    }

    deinit { Syscalls.close(fd) }

    /// The next line the client sent, nil at end of stream; throws after the deadline.
    func readLine(timeout: Double = 10) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                buffer.removeSubrange(0...newline)
                return line
            }
            if isAtEnd { return nil }
            let remaining = deadline.timeIntervalSinceNow
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard remaining > 0, poll(&descriptor, 1, Int32(remaining * 1000) + 1) == 1 else {
                throw TestFailure("no line from monkeyctl within \(timeout) s")
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let result = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try Syscalls.read(fd, into: raw) }
            }
            switch result {
            case .success(.bytes(let count)): buffer.append(contentsOf: chunk[0..<count])
            case .success(.wouldBlock): continue
            case .success(.endOfFile), .failure: isAtEnd = true
            }
        }
    }

    /// Sends text as it is; lines must end in LF.
    func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        let deadline = Date().addingTimeInterval(10)
        while !bytes.isEmpty {
            let written = try bytes.withUnsafeBytes { raw in try Syscalls.send(fd, raw) }
            bytes.removeFirst(written)
            if written == 0 {
                guard Date() < deadline else { throw TestFailure("monkeyctl does not read") }
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, 100)
            }
        }
    }
}
