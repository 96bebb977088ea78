import Dispatch
import MonkeyCore

/// The one Dispatch timer that wakes the daemon for ticks, set as
/// `TickTimer` decides: repeating while ticks are dense, once for the next
/// deadline, or parked when nothing types. Used only on the daemon's queue.
final class TickTimerSource {
    private let source: DispatchSourceTimer
    private var state = TickTimer()

    /// A timer that calls `handler` on `queue`, parked.
    init(queue: DispatchQueue, handler: @escaping () -> Void) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler(handler: handler)
        source.schedule(deadline: .distantFuture)
        source.resume()
    }

    /// The timer fired: a one-shot setting is spent.
    func fired() {
        state.fired()
    }

    /// Points the timer at `deadline` (nil: nothing due), repeating every
    /// `period` when that serves (see `TickTimer.change`).
    func rearm(for deadline: UInt64?, now: UInt64, period: UInt64?) {
        switch state.change(for: deadline, now: now, period: period) {
        case .none:
            break
        case .repeating(let start, let window):
            source.schedule(
                deadline: DispatchTime(uptimeNanoseconds: start), repeating: .nanoseconds(Int(window)),
                leeway: .microseconds(500))
        case .once(let deadline):
            source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(500))
        case .park:
            source.schedule(deadline: .distantFuture)
        }
    }

    func cancel() {
        source.cancel()
    }
}
