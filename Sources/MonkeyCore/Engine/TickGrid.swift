/// Where on the monotonic clock typing sessions tick, so that sessions
/// started at different moments share the daemon's wake-ups.
///
/// A session whose interval is a whole number of `base` steps ticks at
/// multiples of its own step: the longest of 1, 2, 5 and 10 base steps that
/// divides its interval and is at most a fifth of it, else one base step.
/// Only its first tick moves, on to the next multiple, so it comes up to one
/// step later than one interval after the session started; every later tick
/// comes one interval after the one before. A timer repeating every greatest
/// common divisor of the steps in use serves every such session on time.
///
/// Each wake-up costs the daemon two thread wake-ups (Dispatch's manager
/// thread, then the worker), about 140 µs of CPU on a nested virtual machine:
/// with a 10 ms base, sessions of 100 ms share 50 wake-ups a second on a
/// 20 ms grid instead of 100, and sessions of 1 s share 10.
struct TickGrid: Sendable {
    static let multiples: [UInt64] = [1, 2, 5, 10]
    /// The finest step; 0: no grid. Changed only while no session types.
    var base: UInt64
    /// The step of each typing session on the grid, by slot.
    private var stepOfSlot: [Int: UInt64] = [:]
    /// How many typing sessions tick on each step in use.
    private var sessionsOnStep: [UInt64: Int] = [:]
    /// Slots of typing sessions whose interval is not a whole number of `base`.
    private var offGridSlots = Set<Int>()

    init(base: UInt64) {
        self.base = base
    }

    /// The step a session of `interval` ticks on; nil: off the grid.
    func step(forInterval interval: UInt64) -> UInt64? {
        guard base > 0, interval % base == 0 else { return nil }
        let longest = Self.multiples.reversed().first { multiple in
            let step = multiple * base
            return interval % step == 0 && step * 5 <= interval
        }
        return (longest ?? 1) * base
    }

    /// When a session of `interval` that starts typing at `now` first ticks.
    func firstDue(interval: UInt64, now: UInt64) -> UInt64 {
        let due = now + interval
        guard let step = step(forInterval: interval) else { return due }
        return due + (step - due % step) % step
    }

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
    }

    /// The session in `slot` no longer types.
    mutating func remove(slot: Int) {
        offGridSlots.remove(slot)
        guard let step = stepOfSlot.removeValue(forKey: slot), let count = sessionsOnStep[step] else { return }
        sessionsOnStep[step] = count > 1 ? count - 1 : nil
    }

    /// The period of a timer that serves every typing session on time, or
    /// nil when some typing session is off the grid (or there is no grid).
    /// With none typing, any period serves: the base step.
    var period: UInt64? {
        guard base > 0, offGridSlots.isEmpty else { return nil }
        let divisor = sessionsOnStep.keys.reduce(0, Self.greatestCommonDivisor)
        return divisor == 0 ? base : divisor
    }

    private static func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
        b == 0 ? a : greatestCommonDivisor(b, a % b)
    }
}
