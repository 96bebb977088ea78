/// A command line `monkeyctl` cannot run, with the sentence that says why.
public struct UsageError: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    static func unknownOption(_ option: String, for subcommand: Subcommand?) -> UsageError {
        guard let subcommand else { return UsageError("unknown option '\(option)'") }
        return UsageError("'\(subcommand.rawValue)' does not take the option '\(option)'")
    }

    static func missingValue(_ option: String) -> UsageError {
        UsageError("option '\(option)' needs a value")
    }
}
