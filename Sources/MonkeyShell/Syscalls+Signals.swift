import Glibc

extension Syscalls {
    /// `pthread_sigmask(SIG_BLOCK)`: holds the signals pending for the
    /// calling thread and every thread it creates later. Dispatch reads
    /// signals through a signalfd; a signal that is neither blocked nor
    /// handled yet (the daemon's first instants) would otherwise be lost.
    public static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        _ = pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
