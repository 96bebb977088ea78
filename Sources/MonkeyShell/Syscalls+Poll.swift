import Glibc

extension Syscalls {
    /// `poll(2)` for readability: which of `descriptors` can be read now
    /// (or have hung up or failed, which a read then reports), waiting up
    /// to `timeoutMilliseconds` (-1: without a limit). A signal that ends
    /// the wait early returns all false.
    public static func waitReadable(_ descriptors: [Int32], timeoutMilliseconds: Int32) -> [Bool] {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let count = poll(&polled, nfds_t(polled.count), timeoutMilliseconds)
        guard count > 0 else { return Array(repeating: false, count: descriptors.count) }
        let ready = Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL)
        return polled.map { $0.revents & ready != 0 }
    }
}
