import Dispatch

/// Where the stage's per-request function (`ExtensionStage.runSteps`) runs: Dispatch
/// threads, not the cooperative pool, so a Swift extension that blocks pool threads cannot
/// hold back the time limits and answers of the other requests.
final class StageExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
