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
