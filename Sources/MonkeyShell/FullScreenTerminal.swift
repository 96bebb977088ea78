import CShim
import Glibc

/// A terminal's size in character cells.
public struct TerminalSize: Sendable, Equatable {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }
}

/// The terminal taken over by a full-screen view (`monkeyctl top`): raw
/// input, the alternate screen, no cursor, no automatic wrap; and put back
/// exactly as it was by `restore()`, or by the crash guard if the process
/// dies of a fault or a Swift runtime trap before it gets there.
public final class FullScreenTerminal {
    /// Where keys come from (stdin).
    public let input: Int32
    /// Where the screen goes (stdout).
    public let output: Int32
    private var saved = termios()
    private var isActive = false

    /// Alternate screen on, cursor hidden, automatic wrap off (so that a
    /// character in the last column never scrolls the screen), cleared.
    static let enterSequence = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
    /// The attributes reset, wrap on, cursor shown, the main screen back.
    static let leaveSequence = Array("\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l".utf8)

    /// `tcgetattr(3)` of `input`, then `tcsetattr(3)` in raw mode and the
    /// alternate screen on `output`. Throws when `input` is not a terminal.
    public init(input: Int32 = 0, output: Int32 = Syscalls.standardOutput) throws(SystemError) {
        self.input = input
        self.output = output
        guard monkey_terminal_attributes(input, &saved) == 0 else { throw SystemError("tcgetattr") }
        _ = Self.leaveSequence.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                withUnsafePointer(to: &saved) {
                    monkey_guard_terminal(input, $0, output, characters.baseAddress, UInt(characters.count))
                }
            }
        }
        guard monkey_set_raw_terminal(input, &saved) == 0 else {
            let error = SystemError("tcsetattr")
            _ = monkey_unguard_terminal()
            throw error
        }
        isActive = true
        write(Self.enterSequence)
    }

    deinit { restore() }

    /// Puts the terminal back as it was (main screen, cursor, wrap, the
    /// saved termios). Safe to call more than once.
    public func restore() {
        guard isActive else { return }
        isActive = false
        write(Self.leaveSequence)
        _ = monkey_set_terminal_attributes(input, &saved)
        _ = monkey_unguard_terminal()
    }

    /// `ioctl(TIOCGWINSZ)` on the output; nil when it says nothing useful.
    public var size: TerminalSize? {
        Self.size(of: output)
    }

    /// `ioctl(TIOCGWINSZ)` on `fd`; nil when it is not a terminal or reports 0 × 0.
    public static func size(of fd: Int32) -> TerminalSize? {
        var rows: UInt16 = 0
        var columns: UInt16 = 0
        guard monkey_window_size(fd, &rows, &columns) == 0, rows > 0, columns > 0 else { return nil }
        return TerminalSize(rows: Int(rows), columns: Int(columns))
    }

    /// Writes screen updates (`write(2)`, all of them).
    public func write(_ bytes: [UInt8]) {
        Syscalls.writeAll(bytes, to: output)
    }

    /// `read(2)` of the keys waiting on `input`: nil at end of input (the
    /// terminal went away), empty when nothing is there.
    public func readKeys() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count == 0 { return nil }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return []
            default: return nil
            }
        }
    }
}
