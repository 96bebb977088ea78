/// When typing sessions tick and when the daemon wakes up for them: every
/// timing rule of typing in one place.
///
/// - **The grid.** A session whose interval is a whole number of `gridBase`
///   steps ticks at multiples of its own step: the longest of 1, 2, 5 and 10
///   base steps that divides its interval and is at most half of it, else
///   one base step. Only its first tick moves, on to the next multiple, so it
///   comes up to one step later than one interval after the session started;
///   every later tick comes one interval after the one before. Sessions
///   started at different moments so share the daemon's wake-ups: each
///   wake-up costs two thread wake-ups (Dispatch's manager thread, then the
///   worker), about 140 µs of CPU on a nested virtual machine, and with a
///   10 ms base sessions of 100 ms share 20 wake-ups a second on a 50 ms grid
///   instead of 100, sessions of 1 s share 10. Half, not a fifth (a 20 ms
///   grid, 50 wake-ups a second): 10,000 sessions of 100 ms then cost 3 to
///   16 % less CPU from run to run (each wake-up also warms the tick path
///   afresh); a whole interval (one wake-up for all) saved nothing more and
///   doubled their followers' lateness (3.6 ms at p99), followed first too.
/// - **The coalescing window.** A tick may run up to `coalescingWindow`
///   early, but never more than a sixteenth of its session's interval, so
///   that ticks due close together share one wake-up while short intervals
///   keep a steady rhythm.
/// - **Catching up.** A tick missed by less than `catchUpWindow` (a busy
///   machine ran the timer late) is made up at once, keeping the rate; a
///   daemon further behind (suspended, overloaded) skips the missed ticks but
///   keeps the session's phase: sessions held up together would otherwise
///   all fall due together from then on.
/// - **The timer.** One timer serves every session. It repeats with
///   `timerPeriod` (the grid's period when every typing session ticks on the
///   grid, else every coalescing window when each may run that early) and is
///   left alone while ticks keep falling due within it, because setting a
///   Dispatch timer wakes Dispatch's manager thread; otherwise it fires once
///   at the next deadline, and it is parked when nothing types, so that an
///   idle daemon never wakes up (see `TickTimer`).
/// - **Followers.** New entries reach a follower at once if it was last
///   written to more than `followerWriteSpacing` ago, else at the first tick
///   after that spacing (or at the spacing, if no tick comes first): a
///   follower of a slow session gets each entry immediately, one of a 1 kHz
///   session a few entries per write instead of a write per entry. In a
///   wake-up the followed sessions tick first and their followers are
///   written to before the others tick (`Engine.runDueTicks`): on a grid
///   of thousands of sessions a wake-up, their entries would otherwise wait
///   for all of them.
/// - **The linger.** After handling readiness the daemon keeps its queue,
///   polling at most `lingerPollMilliseconds` at a time and running the
///   ticks that fall due meanwhile, for up to `longestLinger` while requests
///   keep coming: each return to Dispatch costs a round through its manager
///   thread and a worker while clients wait (with 50 busy connections,
///   returning every 5 ms answered about 11 % fewer requests a second than
///   every 20 ms), and other work on the queue waits at most this long.
public struct TickPlan: Sendable {
    /// How far ahead of its due time a tick may run (see above).
    public var coalescingWindow: UInt64 = 3_000_000
    /// How late a tick may be and still be made up rather than skipped.
    public var catchUpWindow: UInt64 = 20_000_000
    /// The finest step of the grid; 0: no grid. Changed only while no session types.
    public var gridBase: UInt64 = 10_000_000
    /// How long a follower's new entries may wait to share a write.
    public static let followerWriteSpacing: UInt64 = 4_000_000
    /// How long the daemon keeps its queue while requests keep coming.
    public static let longestLinger: UInt64 = 20_000_000
    /// Each wait for more readiness during the linger.
    public static let lingerPollMilliseconds: Int32 = 1

    static let gridMultiples: [UInt64] = [1, 2, 5, 10]
    /// The step of each typing session on the grid, by slot.
    private var stepOfSlot: [Int: UInt64] = [:]
    /// How many typing sessions tick on each step in use.
    private var sessionsOnStep: [UInt64: Int] = [:]
    /// Slots of typing sessions whose interval is not a whole number of `gridBase`.
    private var offGridSlots = Set<Int>()
    /// Slots of typing sessions whose own window (a sixteenth of their
    /// interval) is shorter than `coalescingWindow`.
    private var shortIntervalSlots = Set<Int>()

    public init() {}

    // MARK: One session's ticks

    /// The step a session of `interval` ticks on; nil: off the grid.
    func step(forInterval interval: UInt64) -> UInt64? {
        guard gridBase > 0, interval % gridBase == 0 else { return nil }
        let longest = Self.gridMultiples.reversed().first { multiple in
            let step = multiple * gridBase
            return interval % step == 0 && step * 2 <= interval
        }
        return (longest ?? 1) * gridBase
    }

    /// When a session of `interval` that starts typing at `now` first ticks.
    func firstDue(interval: UInt64, now: UInt64) -> UInt64 {
        let due = now + interval
        guard let step = step(forInterval: interval) else { return due }
        return due + (step - due % step) % step
    }

    /// How early a tick of a session of `interval` may run.
    func window(forInterval interval: UInt64) -> UInt64 {
        min(coalescingWindow, interval / 16)
    }

    /// Whether a tick due at `due` may run at `now`.
    func mayRun(due: UInt64, interval: UInt64, now: UInt64) -> Bool {
        due <= now &+ window(forInterval: interval)
    }

    /// When a session ticks next after its tick due at `due` ran at `now`,
    /// and how many ticks that skips (nearly always none).
    func nextDue(after due: UInt64, interval: UInt64, now: UInt64) -> (due: UInt64, skipped: UInt64) {
        let next = due + interval
        guard next &+ catchUpWindow <= now else { return (next, 0) }
        let skipped = (now - next) / interval + 1
        return (next + skipped * interval, skipped)
    }

    // MARK: The timer

    /// Counts the session in `slot` as typing with `interval`, in place of
    /// what it was counted as before.
    mutating func place(slot: Int, interval: UInt64) {
        remove(slot: slot)
        if let step = step(forInterval: interval) {
            stepOfSlot[slot] = step
            sessionsOnStep[step, default: 0] += 1
        } else {
            offGridSlots.insert(slot)
        }
        if interval / 16 < coalescingWindow { shortIntervalSlots.insert(slot) }
    }

    /// The session in `slot` no longer types.
    mutating func remove(slot: Int) {
        offGridSlots.remove(slot)
        shortIntervalSlots.remove(slot)
        guard let step = stepOfSlot.removeValue(forKey: slot), let count = sessionsOnStep[step] else { return }
        sessionsOnStep[step] = count > 1 ? count - 1 : nil
    }

    /// Whether a typing session may not run a whole `coalescingWindow`
    /// early: then a timer firing every window would make it late.
    public var hasShortIntervals: Bool { !shortIntervalSlots.isEmpty }

    /// The period of a grid timer that serves every typing session on time,
    /// or nil when some typing session is off the grid (or there is no
    /// grid). With none typing, any period serves: the base step.
    var gridPeriod: UInt64? {
        guard gridBase > 0, offGridSlots.isEmpty else { return nil }
        let divisor = sessionsOnStep.keys.reduce(0, Self.greatestCommonDivisor)
        return divisor == 0 ? gridBase : divisor
    }

    /// How often a timer repeating from the next deadline must fire to run
    /// every typing session's ticks on time, or nil when none can: the
    /// grid's period when all of them tick on the grid, else every
    /// `coalescingWindow` if each may run that much early.
    public var timerPeriod: UInt64? {
        if let period = gridPeriod { return period }
        return hasShortIntervals || coalescingWindow == 0 ? nil : coalescingWindow
    }

    /// Whether ticks due by `deadline` are worth a run at `now`.
    public func isWorthRunning(deadline: UInt64, now: UInt64) -> Bool {
        deadline <= now &+ coalescingWindow
    }

    // MARK: Followers

    /// Whether a follower last written to at `lastWrite` gets new entries
    /// now, given when the next tick is due (nil: none).
    public static func writesFollowerNow(lastWrite: UInt64, now: UInt64, nextTick: UInt64?) -> Bool {
        let writeDue = lastWrite &+ followerWriteSpacing
        return now >= writeDue || (nextTick ?? .max) > writeDue
    }

    private static func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
        b == 0 ? a : greatestCommonDivisor(b, a % b)
    }
}
