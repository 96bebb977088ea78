import CShim
import Glibc

/// An `epoll` instance: the daemon's readiness multiplexer for all connections.
public final class Poller {
    public let fd: Int32
    private var events: [epoll_event]

    public struct Readiness: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: EPOLLIN.rawValue)
        public static let writable = Readiness(rawValue: EPOLLOUT.rawValue)
        public static let hangUp = Readiness(rawValue: EPOLLHUP.rawValue | EPOLLERR.rawValue)
    }

    /// `epoll_create1(EPOLL_CLOEXEC)`
    public init(capacity: Int = 256) throws(SystemError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError("epoll_create1") }
        self.fd = fd
        self.events = [epoll_event](repeating: epoll_event(), count: capacity)
    }

    deinit { Glibc.close(fd) }

    /// `epoll_ctl(EPOLL_CTL_ADD)`, level-triggered.
    public func add(_ descriptor: Int32, token: UInt64, interest: Readiness) throws(SystemError) {
        try control(EPOLL_CTL_ADD, descriptor, token, interest)
    }

    /// `epoll_ctl(EPOLL_CTL_MOD)`
    public func modify(_ descriptor: Int32, token: UInt64, interest: Readiness) throws(SystemError) {
        try control(EPOLL_CTL_MOD, descriptor, token, interest)
    }

    /// `epoll_ctl(EPOLL_CTL_DEL)`
    public func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, &event)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ token: UInt64, _ interest: Readiness)
        throws(SystemError)
    {
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = token
        guard epoll_ctl(fd, operation, descriptor, &event) == 0 else { throw SystemError("epoll_ctl") }
    }

    /// `epoll_wait`: calls `handle` for each ready descriptor; returns how many.
    public func wait(timeoutMilliseconds: Int32, _ handle: (UInt64, Readiness) -> Void) -> Int {
        let count = events.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(fd, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        guard count > 0 else { return 0 }
        for index in 0..<Int(count) {
            handle(events[index].data.u64, Readiness(rawValue: events[index].events))
        }
        return Int(count)
    }
}
