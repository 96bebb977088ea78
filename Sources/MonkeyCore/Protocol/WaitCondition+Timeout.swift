extension WaitCondition {
    /// The message of `ERR timed-out` when this did not come true in
    /// `session` within `timeout`, as a sentence for people:
    /// `session hamlet did not reach best 99 within 1s`.
    public func timeoutMessage(session: SessionName, timeout: Interval) -> String {
        switch self {
        case .hit: "session \(session) had no hit within \(timeout)"
        case .stopped: "session \(session) did not stop within \(timeout)"
        case .best(let length): "session \(session) did not reach best \(length) within \(timeout)"
        case .coverage(let percent): "session \(session) did not reach \(percent)% coverage within \(timeout)"
        }
    }
}
