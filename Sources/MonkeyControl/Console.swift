import MonkeyShell

/// Where `monkeyctl` writes: stdout and stderr of the process, or a test's
/// capture. Output is gathered and written in large pieces; `flush` pushes
/// it out (after each line while following, so a pipe sees entries at once).
public final class Console {
    private let writeOutput: ([UInt8]) -> Void
    private let writeError: ([UInt8]) -> Void
    /// Whether stdout is a terminal, which allows colour.
    public let isOutputTerminal: Bool
    private var pending: [UInt8] = []

    /// Output is flushed once this much is waiting, so a long log streams out.
    private static let flushThreshold = 32 * 1024

    public init(
        isOutputTerminal: Bool, writeOutput: @escaping ([UInt8]) -> Void, writeError: @escaping ([UInt8]) -> Void
    ) {
        self.isOutputTerminal = isOutputTerminal
        self.writeOutput = writeOutput
        self.writeError = writeError
    }

    /// The process's own stdout and stderr.
    public static func standard() -> Console {
        Console(
            isOutputTerminal: Syscalls.isTerminal(Syscalls.standardOutput),
            writeOutput: { Syscalls.writeAll($0, to: Syscalls.standardOutput) },
            writeError: { Syscalls.writeAll($0, to: Syscalls.standardError) })
    }

    deinit { flush() }

    /// Adds a line to stdout.
    func print(_ line: String) {
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        if pending.count >= Self.flushThreshold { flush() }
    }

    func flush() {
        guard !pending.isEmpty else { return }
        writeOutput(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes a line to stderr, after what is waiting for stdout so that the
    /// two stay in order on a terminal.
    func printError(_ line: String) {
        flush()
        writeError(Array((line + "\n").utf8))
    }
}
