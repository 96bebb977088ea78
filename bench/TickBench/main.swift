// The owner's cost of a timed tick alone, on one thread: 10,000 sessions
// of 5 monkeys at 10 Hz, ticked on the engine's grid for simulated time
// (after 15 s that fill their logs), each entry encoded into a journal
// batch as the daemon does: the quiet ones by the tick itself, the others
// as its store does.
// No kernel, no followers: a yardstick for the tick path that repeats to
// a few percent, where the daemon's CPU under load spreads by ±15 %.
//
//   swift build -c release --product tick-bench
//   .build/release/tick-bench [SESSIONS [SECONDS]]
import MonkeyCore
import MonkeyShell

/// Ticks `sessions` sessions for `seconds` of simulated time; answers
/// the ticks and the thread's CPU nanoseconds. In a function: globals of
/// `main.swift` are checked for exclusive access at every use.
func run(sessions: Int, seconds: Int) throws -> (ticks: Int, nanoseconds: UInt64) {
    let limits = Limits()
    var engine = Engine(limits: limits, seed: 1)
    let parser = RequestParser(limits: limits)
    let peer = Peer(uid: 0, pid: 1, mayChange: true)
    let second: UInt64 = 1_000_000_000
    var now = second
    for index in 0..<sessions {
        guard let request = try parser.parse("START s\(index) monkeys=5 interval=100ms") else {
            fatalError("no request")
        }
        // Phases spread over one interval, as independent clients start them.
        _ = engine.handle(request, from: peer, now: now + UInt64(index) * 100_000_000 / UInt64(sessions))
    }
    var typed: [TypedEntry] = []
    var batch = JournalBatch()
    let step: UInt64 = 20_000_000
    /// One wake-up of the tick timer every 20 ms.
    func wakeUp() {
        now += step
        typed.removeAll(keepingCapacity: true)
        _ = engine.runDueTicks(now: now, into: &typed, journal: &batch)
        for item in typed {
            batch.append(item.entry, session: item.session, epoch: item.epoch)
            if item.needsAttention { engine.setAttention(item.session, from: item.entry.id &+ 1_000_000) }
        }
        if batch.count > 1 << 20 { batch = JournalBatch(reusing: batch) }
    }
    // 15 s that grow every log to 150 entries first, as the daemon's row
    // has typed a while before its window: with the default retention
    // (`max_entries`, 10,000) no measured tick drops an entry, in the row
    // or here.
    for _ in 0..<(15 * second / step) { wakeUp() }
    let typedBefore = engine.summary.typed
    let start = Syscalls.threadCPUNanoseconds()
    for _ in 0..<(UInt64(seconds) * second / step) { wakeUp() }
    let elapsed = Syscalls.threadCPUNanoseconds() - start
    let entries = Int(engine.summary.typed - typedBefore)
    // The sessions are freed after the clock is read, not at the engine's last use.
    withExtendedLifetime(engine) {}
    return (entries, elapsed)
}

let arguments = CommandLine.arguments
let sessions = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let seconds = arguments.count > 2 ? Int(arguments[2]) ?? 60 : 60
let (entries, cpu) = try run(sessions: sessions, seconds: seconds)
print(
    "ticks=\(entries) ns_per_tick=\(Double(cpu) / Double(entries)) "
        + "percent_of_a_core_at_10hz=\(Double(cpu) / Double(entries) * Double(sessions) * 10 / 1e7)")
