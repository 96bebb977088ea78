import Testing

@testable import MonkeyCore

/// `ERR timed-out` of WAIT says, as a sentence, what did not happen.
struct WaitConditionTests {
    @Test(
        arguments: [
            (WaitCondition.hit, "session hamlet had no hit within 1s"),
            (.stopped, "session hamlet did not stop within 1s"),
            (.best(99), "session hamlet did not reach best 99 within 1s"),
        ])
    func timeoutMessages(condition: WaitCondition, message: String) throws {
        let session = try #require(SessionName("hamlet"))
        #expect(condition.timeoutMessage(session: session, timeout: Interval(nanoseconds: 1_000_000_000)) == message)
    }
}
