import Foundation
import Synchronization

/// A named thread that runs jobs one at a time, in the order they were submitted: the one
/// place where the bridge makes a thread of its own (blocking reads, network loops,
/// housekeeping), and, through `runBlocking`, where blocking work leaves Swift's
/// cooperative pool.
///
/// The thread starts with the first job. `stop()` never blocks, from any thread (a job's
/// own included): the jobs submitted before it still run, later ones are refused, then the
/// thread ends. A long job (a loop) sees the request through `isStopping` or
/// `stopRequested(within:)`. `join` waits for the end, with a deadline if asked.
package final class Worker: Sendable {
    /// The thread's name (logs, debuggers, `top -H`).
    package let name: String
    private let state = Mutex(State())
    /// Wakes the idle thread (a job or the stop) and a job in `stopRequested(within:)`.
    private let wake = WaitGate()
    /// Wakes `join` once the thread is done.
    private let ended = WaitGate()

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var started = false
        var stopping = false
        var finished = false
        /// The running thread (`pthread_t` is an integer on Linux), for `isCurrent`.
        var thread: pthread_t?
    }

    /// A worker whose thread will be called `name`; nothing starts before the first job.
    package init(name: String) {
        self.name = name
    }

    /// Runs `job` on a new thread called `name`, which ends after it. The worker is returned
    /// to `join` it (or to ask a looping job to stop).
    @discardableResult
    package static func run(name: String, _ job: @escaping @Sendable () -> Void) -> Worker {
        let worker = Worker(name: name)
        worker.submit(job)
        worker.stop()
        return worker
    }

    /// Queues `job` after the ones already queued (the first starts the thread). Never
    /// blocks. `false` (and `job` is dropped) once `stop()` was called.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let launch = state.withLock { s -> Bool? in
            guard !s.stopping else { return nil }
            s.jobs.append(job)
            defer { s.started = true }
            return !s.started
        }
        guard let launch else { return false }
        if launch { start() } else { wake.notify() }
        return true
    }

    /// Refuses new jobs; the thread ends after the queued ones. Never blocks; a second call
    /// does nothing.
    package func stop() {
        state.withLock { s in
            s.stopping = true
            if !s.started { s.finished = true }  // no thread to wait for
        }
        wake.notify()
        ended.notify()
    }

    /// `true` once `stop()` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// For a looping job: waits up to `duration` for `stop()`; `true` if it was called
    /// (at once if it already was), `false` when `duration` passed without it.
    func stopRequested(within duration: Duration) -> Bool {
        wake.wait(until: .now + duration) { isStopping }
    }

    /// `true` when the caller runs on this worker's thread.
    var isCurrent: Bool {
        guard let thread = state.withLock({ $0.thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Waits until the thread has run its last job after `stop()` (at once for a worker that
    /// never started), at most until `deadline` if one is given: `true` when it is done.
    /// Without `stop()` the thread never ends. From the worker's own thread (a job) it
    /// returns `false` at once: the thread cannot wait for itself.
    @discardableResult
    func join(until deadline: ContinuousClock.Instant? = nil) -> Bool {
        if isCurrent { return false }
        let done = { self.state.withLock { $0.finished } }
        guard let deadline else {
            while !ended.wait(until: .now + .seconds(3_600), for: done) {}
            return true
        }
        return ended.wait(until: deadline, for: done)
    }

    private func start() {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    private func loop() {
        state.withLock { $0.thread = pthread_self() }  // before the first job runs
        nameSystemThread()
        while true {
            let (jobs, done) = state.withLock { s -> ([@Sendable () -> Void], Bool) in
                if s.jobs.isEmpty {
                    guard s.stopping else { return ([], false) }
                    s.finished = true
                    s.thread = nil
                    return ([], true)
                }
                defer { s.jobs.removeAll() }
                return (s.jobs, false)
            }
            if done { break }
            if jobs.isEmpty {
                _ = wake.wait(until: .now + .seconds(3_600)) { state.withLock { !$0.jobs.isEmpty || $0.stopping } }
                continue
            }
            for job in jobs { job() }
        }
        ended.notify()
    }
}

extension Worker {
    /// Gives the calling thread `name` as the system sees it (Linux: at most 15 bytes; what
    /// `top -H`, gdb and `/proc` show). Foundation applies `Thread.name` only when the name
    /// is set on the running thread, and then races with `start()`; without this the thread
    /// keeps the name of the thread that created it. (Swift's Glibc module does not export the
    /// GNU `pthread_setname_np`; its `/proc` file is the same setting.)
    fileprivate func nameSystemThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The idle threads of `runBlocking`, reused by the next call.
    private static let idle = Mutex<[Worker]>([])
    /// Idle threads kept at most; one more is stopped after its job.
    private static let idleLimit = 4

    /// Runs blocking work (replaying the journal, joining network threads, flushing to the
    /// broker) on a worker thread and awaits its result, so that the calling task leaves
    /// its cooperative thread free. The threads are reused: a call starts a new one only
    /// while every earlier one is busy (calls never wait for each other).
    static func runBlocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        let worker = idle.withLock { $0.popLast() } ?? Worker(name: "pushbridge-pool")
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            // An idle worker is never stopped, so the job is always taken.
            worker.submit {
                let result = work()
                let kept = idle.withLock { workers -> Bool in
                    guard workers.count < idleLimit else { return false }
                    workers.append(worker)
                    return true
                }
                if !kept { worker.stop() }
                continuation.resume(returning: result)
            }
        }
    }
}
