import CShim
import Glibc
import Synchronization

/// Ctrl-C presses since `Syscalls.catchInterrupts()`. Written by the
/// signal handler, so it must be lock-free: an `Atomic` is async-signal-safe.
private let interruptCount = Atomic<Int>(0)

/// Standard output and error, the environment, and Ctrl-C for `monkeyctl`.
extension Syscalls {
    public static let standardOutput: Int32 = 1
    public static let standardError: Int32 = 2

    /// `write(2)` of all bytes, resuming after EINTR and short writes. Not
    /// stdio: while following, SIGINT has no SA_RESTART, and stdio would drop
    /// output on EINTR. A closed pipe ends the process with SIGPIPE, as for
    /// any filter.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBufferPointer { writeAll($0, to: fd) }
    }

    /// `write(2)` of all bytes, as above, from where they lie.
    public static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Writes one line to stderr: the daemon's and the client's one way
    /// to say something there.
    public static func printError(_ line: String) {
        writeAll(Array((line + "\n").utf8), to: standardError)
    }

    /// The process environment, read from `environ(7)`.
    public static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var pointer = start else { return variables }
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                // getenv(3) returns the first of duplicates; so do we.
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            pointer += 1
        }
        return variables
    }

    /// `sigaction(SIGINT)` with a handler that only counts, and without
    /// SA_RESTART, so that a blocking `read(2)` fails with EINTR and the
    /// caller sees the press. Returns the previous action for `restoreInterrupts`.
    public static func catchInterrupts() -> sigaction {
        interruptCount.store(0, ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            interruptCount.add(1, ordering: .relaxed)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        _ = sigaction(SIGINT, &action, &previous)
        // Blocked except while waiting in `waitReadableOrInterrupt`: a press
        // between checking the count and waiting is then held pending, not lost.
        _ = monkey_block_sigint(1)
        return previous
    }

    /// Counts a Ctrl-C that is pending while SIGINT is blocked (`sigpending`,
    /// then unblocking for a moment), so that a stream that never pauses
    /// cannot hold it back.
    public static func deliverPendingInterrupt() {
        _ = monkey_deliver_pending_sigint()
    }

    /// `ppoll(2)` for readability with SIGINT unblocked during the wait only.
    /// Returns false when a signal ended the wait.
    public static func waitReadableOrInterrupt(_ fd: Int32) -> Bool {
        monkey_wait_readable_unblocking_sigint(fd) == 1
    }

    /// `sigaction(SIGINT)` back to what it was before `catchInterrupts`.
    public static func restoreInterrupts(_ previous: sigaction) {
        var previous = previous
        _ = sigaction(SIGINT, &previous, nil)
        _ = monkey_block_sigint(0)
    }

    /// How many times SIGINT arrived since `catchInterrupts`.
    public static var interrupts: Int {
        interruptCount.load(ordering: .relaxed)
    }
}
