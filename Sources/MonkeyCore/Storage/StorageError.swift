/// Why a change could not be made durable, in words for the operator.
public struct StorageError: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}
