import Glibc

extension Syscalls {
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` in nanoseconds: the CPU
    /// time the calling thread has used, what a measurement of work per
    /// second of CPU counts on a machine shared with other load.
    public static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
