import Dispatch
import MonkeyCore
import MonkeyShell
import Synchronization

/// The typing threads: flat-out sessions' batches typed away from the
/// daemon's queue. The owner hands out `PoolJob`s (values) with `submit`;
/// each thread takes one, types it with a `Typist` of its own, and puts the
/// `TypedBatch` on the queue of results, calling `finished` (which wakes
/// the owner) when that queue was empty; the owner takes them all with
/// `takeResults` and merges them in a pass of its own. Nothing but values
/// crosses the `Mutex`.
///
/// The threads are started with the first job (a daemon without flat-out
/// sessions has none), named `monkeyd.type.N`, at nice 10 under
/// `SCHED_BATCH`; they live as long as the process.
final class TypingPool: Sendable {
    let threadCount: Int
    private let state = Mutex(State())
    /// Every access to `state` goes through this queue too: ThreadSanitizer
    /// does not see the futex under `Mutex`, and took the threads' accesses
    /// for races; it does see `DispatchQueue.sync`. The lock then never waits.
    private let serial = DispatchQueue(label: "monkeyd.typing-pool")
    private let jobsWaiting = DispatchSemaphore(value: 0)
    private let finished: @Sendable () -> Void
    private let failed: @Sendable (SystemError) -> Void

    private struct State {
        var jobs: [PoolJob] = []
        var nextJob = 0
        var results: [PoolResult] = []
        /// `finished` was called and the owner has not yet taken the results.
        var ownerNotified = false
        var started = false
    }

    /// `finished` and `failed` are called on a typing thread: they must
    /// only hand over to the owner's queue.
    init(
        threads: Int, finished: @escaping @Sendable () -> Void, failed: @escaping @Sendable (SystemError) -> Void
    ) {
        threadCount = max(threads, 1)
        self.finished = finished
        self.failed = failed
    }

    private func locked<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        serial.sync { state.withLock { value in body(&value) } }
    }

    /// Queues jobs for the threads, starting them the first time.
    func submit(_ jobs: [PoolJob]) {
        guard !jobs.isEmpty else { return }
        let start = locked { state -> Bool in
            if state.nextJob > 0 && state.nextJob == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: true)
                state.nextJob = 0
            }
            state.jobs.append(contentsOf: jobs)
            defer { state.started = true }
            return !state.started
        }
        if start { startThreads() }
        for _ in jobs { jobsWaiting.signal() }
    }

    /// The oldest batch finished and not yet taken, and whether more are
    /// waiting (then the owner takes them in passes of their own, so that
    /// requests are served between two merges).
    func takeResult() -> (result: PoolResult?, more: Bool) {
        locked { state in
            guard !state.results.isEmpty else {
                state.ownerNotified = false
                return (nil, false)
            }
            let result = state.results.removeFirst()
            let more = !state.results.isEmpty
            if !more { state.ownerNotified = false }
            return (result, more)
        }
    }

    private func startThreads() {
        for number in 0..<threadCount {
            do {
                try Syscalls.startThread(named: "monkeyd.type.\(number)") { [self] in work() }
            } catch {
                failed(error)
                // One thread is enough to type; without any, nothing types.
                if number > 0 { return }
            }
        }
    }

    /// A typing thread's life.
    private func work() {
        do {
            try Syscalls.lowerThisThreadsPriority()
        } catch {
            failed(error)
        }
        var typist = Typist()
        while true {
            jobsWaiting.wait()
            let job = locked { state -> PoolJob? in
                guard state.nextJob < state.jobs.count else { return nil }
                defer { state.nextJob += 1 }
                return state.jobs[state.nextJob]
            }
            guard let job else { continue }
            let (batch, matches) = Engine.type(job.job, index: job.index, with: &typist)
            let notify = locked { state -> Bool in
                state.results.append(PoolResult(ticket: job.ticket, batch: batch, matches: matches))
                defer { state.ownerNotified = true }
                return !state.ownerNotified
            }
            if notify { finished() }
        }
    }
}

/// A batch typed by a typing thread, with what it found in a corpus.
struct PoolResult: Sendable {
    let ticket: PoolJob.Ticket
    let batch: TypedBatch
    let matches: CorpusMatches?
}
