import Foundation
import Testing

/// `monkeyctl wait` on a session where the condition cannot come true as
/// it is: a warning on stderr naming why, before waiting; and a timeout
/// that says, as a sentence, what did not happen.
@Suite("monkeyctl wait")
struct MonkeyctlWaitTests {
    static let warning = "monkeyctl: warning: this wait may never end: "

    @Test func aWaitThatCanNeverEndIsWarnedOfAndTimesOutInASentence() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START nt interval=1h")
        _ = try daemon.request(
            #"START hamlet target="to be or not to be" monkeys=24 alphabet="abcdefghijklmnopqrstuvwxyz " interval=1h"#)
        let monkeyctl = MonkeyctlClient(daemon)
        let noTarget = try monkeyctl.run("wait", "nt", "--hit", "--timeout", "50ms")
        #expect(noTarget.status == 5, "\(noTarget)")
        #expect(
            noTarget.errorLines == [
                Self.warning + "session nt has no target, so it never hits",
                "monkeyctl: session nt had no hit within 50ms (timed-out)",
            ])
        let tooLong = try monkeyctl.run("wait", "hamlet", "--best", "99", "--timeout", "50ms")
        #expect(tooLong.status == 5, "\(tooLong)")
        #expect(
            tooLong.errorLines == [
                Self.warning + "session hamlet's target has 18 characters, so best 99 can never be reached",
                "monkeyctl: session hamlet did not reach best 99 within 50ms (timed-out)",
            ])
    }

    @Test func aTargetThatCanNeverBeTypedIsWarnedOfAsStartDoes() throws {
        let daemon = try DaemonProcess()
        let monkeyctl = MonkeyctlClient(daemon)
        let started = try monkeyctl.run("start", "imp", "--target", "xyz", "--alphabet", "ab", "--interval", "1h")
        let why = #"the alphabet lacks "x", "y" and "z", and entries of 1 character cannot hold a 3-character target"#
        #expect(started.errorLines == ["monkeyctl: warning: the target can never be typed: \(why)"])
        let wait = try monkeyctl.run("--json", "wait", "imp", "--hit", "--timeout", "20ms")
        #expect(wait.status == 5, "\(wait)")
        #expect(wait.errorLines.first == Self.warning + "session imp can never type its target: \(why)")
        #expect(wait.output == "", "the warning is for people: stdout stays JSON")
    }

    @Test func aWaitThatCanEndIsNotWarnedOf() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request("START quick alphabet=ab target=ab monkeys=4 interval=1ms")
        let monkeyctl = MonkeyctlClient(daemon)
        let hit = try monkeyctl.run("wait", "quick", "--hit", "--timeout", "10s")
        #expect(hit.status == 0 && hit.error == "", "\(hit)")
        let stopped = try monkeyctl.run("wait", "quick", "--stopped", "--timeout", "20ms")
        #expect(stopped.status == 5, "\(stopped)")
        #expect(stopped.errorLines == ["monkeyctl: session quick did not stop within 20ms (timed-out)"])
        _ = try daemon.request("STOP quick")
        let asleep = try monkeyctl.run("wait", "quick", "--hit", "--timeout", "20ms")
        #expect(
            asleep.errorLines.first == Self.warning
                + "session quick is stopped, so it types nothing until it is started")
    }
}
