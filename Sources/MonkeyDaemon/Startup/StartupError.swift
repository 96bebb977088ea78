import MonkeyShell

/// Why the daemon cannot start, in one sentence for the operator.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    init(_ context: String, _ error: SystemError) {
        self.message = "\(context): \(error)"
    }

    public var description: String { message }
}
