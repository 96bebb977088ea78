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

    /// What `poll` waits for on a descriptor, and what it found.
    public struct PollEvents: OptionSet, Sendable, Equatable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        /// `POLLIN`
        public static let readable = PollEvents(rawValue: Int16(POLLIN))
        /// `POLLOUT`
        public static let writable = PollEvents(rawValue: Int16(POLLOUT))
        /// `POLLHUP`, reported whether asked for or not: the peer hung up.
        public static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
        /// `POLLERR` or `POLLNVAL`, reported whether asked for or not: the
        /// descriptor failed (a pipe's reader went away) or is not open.
        public static let failed = PollEvents(rawValue: Int16(POLLERR | POLLNVAL))
    }

    /// `poll(2)` of several descriptors, each for its events, without a
    /// time limit; a negative descriptor is left out, as poll does. EINTR
    /// is retried. Returns what each descriptor reported, in order.
    public static func waitForEvents(_ requests: [(fd: Int32, events: PollEvents)]) throws(SystemError) -> [PollEvents]
    {
        var polled = requests.map { pollfd(fd: $0.fd, events: $0.events.rawValue, revents: 0) }
        while Glibc.poll(&polled, nfds_t(polled.count), -1) < 0 {
            guard errno == EINTR else { throw SystemError("poll") }
        }
        return polled.map { PollEvents(rawValue: $0.revents) }
    }
}
