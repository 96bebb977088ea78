import Foundation
import Glibc
import MonkeyCore
import MonkeyShell

/// Where `swift build` put the binaries: beside the test bundle.
enum Binaries {
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // Swift Testing may run from inside the .xctest bundle directory.
        while url.path.contains(".xctest") { url.deleteLastPathComponent() }
        return url.path
    }()

    static var monkeyd: String { directory + "/monkeyd" }

    /// Whether monkeyd is built with AddressSanitizer, whose allocator keeps
    /// freed memory in quarantine, so that resident memory says nothing
    /// about what the daemon holds.
    static let isAddressSanitized: Bool = {
        guard let binary = FileManager.default.contents(atPath: monkeyd) else { return false }
        return binary.range(of: Data("__asan_init".utf8)) != nil
    }()
    static var monkeyctl: String { directory + "/monkeyctl" }

    /// Whether monkeyctl is built with a sanitizer, which takes SIGSEGV for
    /// itself: a process it reports dies with its exit status, not of the signal.
    static let isSanitized: Bool = {
        guard let binary = FileManager.default.contents(atPath: monkeyctl) else { return false }
        return binary.range(of: Data("__asan_init".utf8)) != nil || binary.range(of: Data("__tsan_init".utf8)) != nil
    }()
}

/// A scratch directory removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/monkeyd-test.XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        path = created ?? "/tmp/monkeyd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A datagram socket standing in for systemd's NOTIFY_SOCKET. Like
/// systemd, it reads every datagram as it arrives: the kernel queues only a
/// few unread datagrams (net.unix.max_dgram_qlen, often 10), and a sender
/// past that blocks.
final class NotifyListener: @unchecked Sendable {
    let path: String
    let fd: Int32
    /// Guards `received` and `isClosed`; signalled on each arrival.
    private let condition = NSCondition()
    private var received: [String] = []
    private var isClosed = false

    init(path: String) throws {
        self.path = path
        fd = try Syscalls.unixDatagramSocket()
        try Syscalls.bind(fd, path: path)
        let thread = Thread { [self] in readUntilClosed() }
        thread.start()
    }

    deinit { Glibc.close(fd) }

    /// Stops reading; the reader thread holds the listener until it ends.
    func close() {
        condition.withLock { isClosed = true }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if condition.withLock({ isClosed }) { return }
            guard ready == 1 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { continue }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            condition.withLock {
                received.append(message)
                condition.broadcast()
            }
        }
    }

    /// The next datagram, or nil if none arrives before the deadline.
    func receive(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while received.isEmpty {
                guard condition.wait(until: deadline) else { break }
            }
            return received.isEmpty ? nil : received.removeFirst()
        }
    }

    /// Waits for a datagram containing `assignment` (like "READY=1").
    func waitFor(_ assignment: String, timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = receive(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if message.split(separator: "\n").contains(where: { $0 == assignment || $0.hasPrefix(assignment) }) {
                return message
            }
        }
        return nil
    }
}

/// Runs a program (monkeyd unless told otherwise) that is expected to exit
/// by itself, as a daemon refusing to start does; returns its status and
/// what it wrote to stderr and stdout.
func runToExit(
    _ arguments: [String], executable: String = Binaries.monkeyd, environment: [String: String]? = nil,
    timeout: Double = 10
) throws -> (status: Int32, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    process.standardError = output
    process.standardOutput = output
    try process.run()
    // Read while it runs: a full pipe would keep it from exiting.
    let finished = DispatchSemaphore(value: 0)
    let collected = ErrorLog()
    DispatchQueue.global().async {
        collected.append(output.fileHandleForReading.readDataToEndOfFile())
        finished.signal()
    }
    guard finished.wait(timeout: .now() + timeout) == .success else {
        process.terminate()
        throw TestFailure("\(executable) \(arguments) did not exit within \(timeout) s")
    }
    process.waitUntilExit()
    return (process.terminationStatus, collected.text)
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A real monkeyd on a temporary socket and state directory, started and
/// awaited through a real NOTIFY_SOCKET (no sleeps).
final class DaemonProcess {
    let directory = TemporaryDirectory()
    let process = Process()
    let socketPath: String
    let stateDirectory: String
    let notify: NotifyListener
    private let errorPipe = Pipe()
    private let errorLog = ErrorLog()

    /// `launcher` runs the daemon through another program that execs it
    /// (like `prlimit --nofile=32:32`), so that the pid stays the daemon's.
    /// `stateDirectory` lets a test restart a daemon on the state another left.
    /// Without `manager`, no NOTIFY_SOCKET is set, as when it is run by
    /// hand: the daemon is ready once it logged that it listens and answers.
    init(
        configuration: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
        launcher: [String] = [], stateDirectory: String? = nil, manager: Bool = true
    ) throws {
        socketPath = directory.path + "/monkeyd.sock"
        self.stateDirectory = stateDirectory ?? directory.path + "/state"
        notify = try NotifyListener(path: directory.path + "/notify.sock")
        var arguments = ["--socket", socketPath, "--state-dir", self.stateDirectory] + arguments
        let configurationPath = directory.path + "/monkeyd.conf"
        try (configuration ?? "").write(toFile: configurationPath, atomically: true, encoding: .utf8)
        arguments += ["--config", configurationPath]
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [Binaries.monkeyd] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Binaries.monkeyd)
            process.arguments = arguments
        }
        var environment = environment
        if manager { environment["NOTIFY_SOCKET"] = notify.path }
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        // A sanitizer build of the daemon obeys the same options as the tests.
        for (name, value) in ProcessInfo.processInfo.environment
        where ["ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"].contains(name) {
            environment[name] = value
        }
        process.environment = environment
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        let log = errorLog
        errorPipe.fileHandleForReading.readabilityHandler = { handle in
            log.append(handle.availableData)
        }
        try process.run()
        let socketPath = socketPath
        let isReady =
            manager
            ? notify.waitFor("READY=1") != nil
            : eventually(timeout: 30) {
                errorLog.text.contains("listening on") && (try? ClientConnection(path: socketPath)) != nil
            }
        guard isReady else {
            process.terminate()
            throw TestFailure("monkeyd did not become ready: \(errorLog.text)")
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        errorPipe.fileHandleForReading.readabilityHandler = nil
        notify.close()
    }

    var pid: Int32 { process.processIdentifier }
    var standardError: String { errorLog.text }

    /// Its stderr once start-up's last line ("listening on") has been read
    /// from the pipe, so that everything start-up logged is in it.
    var startupLog: String {
        _ = eventually { standardError.contains("listening on") }
        return standardError
    }

    func connect() throws -> ClientConnection {
        try ClientConnection(path: socketPath)
    }

    /// Sends one request on a fresh connection and returns the response lines.
    func request(_ line: String) throws -> [String] {
        let connection = try connect()
        try connection.send(line: line)
        return try connection.readResponse()
    }

    /// Sends a signal and waits for the process to exit; returns its status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Double = 10) throws -> Int32 {
        kill(pid, signal)
        return try waitForExit(timeout: timeout)
    }

    func waitForExit(timeout: Double = 10) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                throw TestFailure("monkeyd did not exit within \(timeout) s; \(whereItWaits())\n\(standardError)")
            }
            usleep(2000)
        }
        return process.terminationStatus
    }

    /// What each of the daemon's threads is doing (state and kernel wait
    /// channel): the clue a hang leaves.
    func whereItWaits() -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.sorted().map { task in
            let directory = "/proc/\(pid)/task/\(task)/"
            let stat = (try? String(contentsOfFile: directory + "stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first ?? "?"
            let channel = (try? String(contentsOfFile: directory + "wchan", encoding: .utf8)) ?? "?"
            return "thread \(task): \(state) in \(channel)"
        }.joined(separator: ", ")
    }

    /// The daemon's own count of its wake-ups, by what woke it
    /// (`monkeyd_wakeups_total` of METRICS). Asking costs a wake-up or two
    /// of `connections`, and nothing else.
    func wakeUps() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let prefix = "monkeyd_wakeups_total{source=\""
        for line in try request("METRICS") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\""), let space = rest.lastIndex(of: " ") else { continue }
            counts[String(rest[..<quote])] = Int(rest[rest.index(after: space)...])
        }
        guard !counts.isEmpty else { throw TestFailure("METRICS has no monkeyd_wakeups_total") }
        return counts
    }

    /// The wake-ups of every source but `connections` (the test's own requests).
    func wakeUpsBesidesRequests() throws -> [String: Int] {
        try wakeUps().filter { $0.key != "connections" }
    }

    /// Waits until nothing but requests has woken the daemon for `quiet`
    /// seconds (a sync or a status line may still be due when a test stops
    /// typing), then returns the counts; throws after `timeout`.
    @discardableResult
    func waitUntilIdle(quiet: Double = 0.3, timeout: Double = 10) throws -> [String: Int] {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try wakeUpsBesidesRequests()
        var quietSince = Date()
        while Date() < deadline {
            usleep(20_000)  // polling with a deadline
            let now = try wakeUpsBesidesRequests()
            if now != last {
                last = now
                quietSince = Date()
            } else if Date().timeIntervalSince(quietSince) >= quiet {
                return now
            }
        }
        throw TestFailure("the daemon kept waking up: \(last)")
    }

    /// Resident memory of the daemon in KiB (from /proc).
    func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
        }
        return 0
    }
}

/// Collects a child's stderr from the pipe's reader thread.
final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) {
        lock.lock()
        data.append(more)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

extension ClientConnection {
    /// Reads lines up to and including the status line.
    func readResponse() throws -> [String] {
        var lines: [String] = []
        while let line = try readLine() {
            lines.append(line)
            if line == "OK" || line.hasPrefix("OK ") || line.hasPrefix("ERR ") { return lines }
        }
        throw TestFailure("connection closed after \(lines)")
    }

    func request(_ line: String) throws -> [String] {
        try send(line: line)
        return try readResponse()
    }

    /// Waits until the daemon has data for us, up to a deadline.
    func waitReadable(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(timeout * 1000)) == 1
    }
}

/// Parses a data line into its fields.
func fields(_ line: String) throws -> [String: String] {
    let record = try ResponseDecoder.record(line)
    var result = ["type": record.type]
    for field in record.fields { result[field.key] = field.value }
    return result
}

/// Polls `condition` until it holds or the deadline passes.
func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(5000)
    }
    return try condition()
}
