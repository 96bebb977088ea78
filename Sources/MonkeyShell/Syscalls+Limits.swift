import Glibc

extension Syscalls {
    /// `setrlimit(RLIMIT_NOFILE)`: raises the soft limit on open descriptors
    /// to the hard limit, so that the configured number of clients fits;
    /// returns the limit now in force.
    @discardableResult
    public static func raiseOpenFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(resource(RLIMIT_NOFILE), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource(RLIMIT_NOFILE), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }

    private static func resource(_ value: __rlimit_resource) -> __rlimit_resource_t {
        __rlimit_resource_t(value.rawValue)
    }
}
