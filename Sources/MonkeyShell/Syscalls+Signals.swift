import CShim
import Glibc

extension Syscalls {
    /// `pthread_sigmask(SIG_BLOCK)`: holds the signals pending for the
    /// calling thread and every thread it creates later, so that only a
    /// signalfd receives them. Called first thing in main, before any thread
    /// exists: a signal that arrives during start-up then waits for the
    /// event loop instead of being lost.
    public static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        _ = pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// `pthread_sigmask(SIG_BLOCK)` of `signals`, returning the mask before,
    /// for `setSignalMask` to put back.
    public static func blockSignalsReturningMask(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        var previous = sigset_t()
        _ = pthread_sigmask(SIG_BLOCK, &set, &previous)
        return previous
    }

    /// `pthread_sigmask(SIG_SETMASK)`: the calling thread's mask back to `mask`.
    public static func setSignalMask(_ mask: sigset_t) {
        var mask = mask
        _ = pthread_sigmask(SIG_SETMASK, &mask, nil)
    }

    /// Ends the process by `signal` as if it had never been caught:
    /// `signal(SIG_DFL)`, unblocked, `raise(3)`; exits with 128 + signal if
    /// it does not end the process (a signal whose default is to ignore).
    public static func dieBySignal(_ signal: Int32) -> Never {
        _ = Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
        _ = raise(signal)
        Glibc.exit(128 + signal)
    }

    /// `signalfd(2)` for `signals`, non-blocking and close-on-exec; readable
    /// while one of them is pending. The signals must be blocked.
    public static func signalDescriptor(for signals: [Int32]) throws(SystemError) -> Int32 {
        let fd = signals.withUnsafeBufferPointer { monkey_signalfd($0.baseAddress, Int32($0.count)) }
        if fd < 0 { throw SystemError("signalfd") }
        return fd
    }

    /// `read(2)` of a signalfd: the signals pending now, oldest first.
    public static func pendingSignals(_ fd: Int32) -> [Int32] {
        var signals: [Int32] = []
        while case let signal = monkey_read_signal(fd), signal > 0 { signals.append(signal) }
        return signals
    }

    /// `pause(2)` forever, keeping the signal mask: the calling thread (main)
    /// sleeps while Dispatch queues do the work.
    public static func parkForever() -> Never {
        while true { pause() }
    }
}
