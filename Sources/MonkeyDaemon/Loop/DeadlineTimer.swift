import Dispatch

/// One Dispatch timer on the daemon's queue that serves many deadlines: it
/// is set for the earliest, and its handler finds what is due and arms it
/// again for the next. Its Dispatch source is made on the first `arm`, so
/// a daemon that never needs the timer never has one.
///
/// Used only on the daemon's queue.
final class DeadlineTimer {
    private let queue: DispatchQueue
    private let leeway: DispatchTimeInterval
    private let handler: () -> Void
    private var state = State.unmade

    private enum State {
        /// Never armed: no Dispatch source yet.
        case unmade
        /// Fires at `deadline`, or waits (`nil`) to be armed again.
        case made(DispatchSourceTimer, deadline: UInt64?)
        /// Shut down: never fires again.
        case cancelled
    }

    /// A timer that calls `handler` on `queue` when it fires, disarmed.
    init(queue: DispatchQueue, leeway: DispatchTimeInterval, handler: @escaping () -> Void) {
        self.queue = queue
        self.leeway = leeway
        self.handler = handler
    }

    /// Moves the timer earlier if needed; a later deadline is found again
    /// when the timer fires.
    func arm(at deadline: UInt64) {
        let source: DispatchSourceTimer
        switch state {
        case .cancelled:
            return
        case .made(let existing, let armed):
            if let armed, armed <= deadline { return }
            source = existing
        case .unmade:
            source = DispatchSource.makeTimerSource(queue: queue)
            source.setEventHandler { [self] in fired() }
            source.resume()
        }
        state = .made(source, deadline: deadline)
        source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: leeway)
    }

    /// Disarms, then hands over to the handler, which arms the timer again
    /// for whatever is not yet due.
    private func fired() {
        guard case .made(let source, _) = state else { return }
        state = .made(source, deadline: nil)
        source.schedule(deadline: .distantFuture)
        handler()
    }

    /// At shutdown: the timer never fires again, and arming it does nothing.
    func cancel() {
        if case .made(let source, _) = state { source.cancel() }
        state = .cancelled
    }
}
