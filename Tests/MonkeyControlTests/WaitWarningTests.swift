import MonkeyCore
import Testing

@testable import MonkeyControl

/// Why a wait may never end, read from the session's STATUS line.
@Suite("Wait warnings")
struct WaitWarningTests {
    static let hamlet =
        #"session name=hamlet state=running monkeys=24 interval=100ms alphabet="abcdefghijklmnopqrstuvwxyz " "#
        + #"target="to be or not to be" typed=5 entries=5 hits=0 best=to"#

    static let cases: [(status: String, condition: String, reason: String?)] = [
        (
            "session name=nt state=running monkeys=5 interval=100ms alphabet=abc target=\"\" typed=0 entries=0 hits=0 best=\"\"",
            "hit", "session nt has no target, so it never hits"
        ),
        (
            "session name=nt state=running monkeys=5 interval=100ms alphabet=abc target=\"\" typed=0 entries=0 hits=0 best=\"\"",
            "best=1", "session nt has no target, so its best never grows"
        ),
        (hamlet, "best=99", "session hamlet's target has 18 characters, so best 99 can never be reached"),
        (hamlet, "best=18", nil),
        (hamlet, "best=2", nil),
        (hamlet, "hit", nil),
        (hamlet, "stopped", nil),
        (
            "session name=imp state=running monkeys=2 interval=1h alphabet=ab target=abxyz typed=0 entries=0 hits=0 best=ab",
            "hit",
            #"session imp can never type its target: the alphabet lacks "x", "y" and "z", and entries of 2 characters cannot hold a 5-character target"#
        ),
        (
            "session name=imp state=running monkeys=2 interval=1h alphabet=ab target=abxyz typed=0 entries=0 hits=0 best=a",
            "best=2", nil
        ),
        (
            "session name=imp state=running monkeys=2 interval=1h alphabet=ab target=abxyz typed=0 entries=0 hits=0 best=a",
            "best=3",
            #"session imp can never type the first 3 characters of its target: the alphabet lacks "x", and entries of 2 characters cannot hold a 3-character target"#
        ),
        (
            "session name=imp state=running monkeys=8 interval=1h alphabet=ab target=xab typed=0 entries=0 hits=0 best=\"\"",
            "best=1", #"session imp can never type the first character of its target: the alphabet lacks "x""#
        ),
        (
            "session name=ok state=stopped monkeys=4 interval=1h alphabet=ab target=ab typed=0 entries=0 hits=0 best=a",
            "hit", "session ok is stopped, so it types nothing until it is started"
        ),
        (
            "session name=ok state=stopped monkeys=4 interval=1h alphabet=ab target=ab typed=0 entries=0 hits=0 best=a",
            "best=2", "session ok is stopped, so it types nothing until it is started"
        ),
        (
            "session name=ok state=stopped monkeys=4 interval=1h alphabet=ab target=ab typed=0 entries=0 hits=0 best=ab",
            "best=2", nil
        ),
        // A session of a kind without a target field: no guess.
        ("session name=other state=running monkeys=4 interval=1h alphabet=ab typed=0", "hit", nil),
    ]

    @Test(arguments: cases)
    func reasons(status: String, condition: String, reason: String?) throws {
        let record = try ResponseDecoder.record(status)
        #expect(WaitWarning.reason(condition: condition, session: record) == reason)
    }
}
