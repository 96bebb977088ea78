import CShim
import Glibc

/// Threads of their own: the typing threads (`pthread_create`), their
/// priority, and how many processors the daemon may use.
extension Syscalls {
    /// `pthread_create`, detached, named `name` (`pthread_setname_np`: the
    /// kernel keeps 15 bytes), running `body` until it returns.
    public static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        final class Start: Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { argument in
                guard let argument else { return nil }
                let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                _ = start.name.withCString { monkey_name_thread($0) }
                start.body()
                return nil
            }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError("pthread_create", errno: result)
        }
    }

    /// `setpriority(PRIO_PROCESS, gettid(), nice)` and
    /// `sched_setscheduler(0, SCHED_BATCH)`, for the calling thread only:
    /// it gives way to every other thread of the machine.
    public static func lowerThisThreadsPriority(nice: Int32 = 10) throws(SystemError) {
        guard monkey_lower_thread_priority(nice) == 0 else { throw SystemError("setpriority") }
    }

    /// How many processors the process may use at once: the CPUs of its
    /// affinity (`sched_getaffinity`), fewer when its cgroup v2 `cpu.max`
    /// quota allows fewer (quota / period, rounded up), at least 1.
    public static func usableProcessorCount() -> Int {
        var count = Int(monkey_affinity_cpu_count())
        if count < 1 { count = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
        if let quota = cgroupProcessorQuota() { count = min(count, quota) }
        return max(count, 1)
    }

    /// The processors the cgroup's `cpu.max` allows, rounded up; nil
    /// without a quota ("max") or a cgroup v2 file to read.
    static func cgroupProcessorQuota() -> Int? {
        guard let membership = smallFile("/proc/self/cgroup") else { return nil }
        // cgroup v2: the one line "0::/path".
        guard let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
        let path = line.dropFirst(3)
        guard let limit = smallFile("/sys/fs/cgroup\(path == "/" ? "" : path)/cpu.max") else { return nil }
        let fields = limit.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, let quota = Int(fields[0]), let period = Int(fields[1]), quota > 0, period > 0
        else { return nil }
        return (quota + period - 1) / period
    }

    /// A small file's text (at most 4 KiB), or nil.
    private static func smallFile(_ path: String) -> String? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
