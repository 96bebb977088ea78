/// One tick's typing: a string of `monkeys` characters.
///
/// Identity is the `id`, never the text; `number` is what people read (`7. qwert`).
public struct Entry: Sendable, Equatable {
    /// Unique within the session for its whole life; increases in typing order.
    public let id: UInt64
    /// 1-based; restarts at 1 after CLEAR, never changes once given.
    public let number: UInt64
    public let text: String
    /// The text contained the session's target when it was typed.
    public let isHit: Bool

    public init(id: UInt64, number: UInt64, text: String, isHit: Bool) {
        self.id = id
        self.number = number
        self.text = text
        self.isHit = isHit
    }
}
