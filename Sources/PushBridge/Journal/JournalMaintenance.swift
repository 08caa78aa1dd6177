import Foundation
import Synchronization

/// The journal's housekeeping thread: flushes done marks often, compacts and checkpoints
/// periodically (with `fsync: interval` the checkpoint is what bounds power-loss exposure).
final class JournalMaintenance: Sendable {
    /// How often done marks are written.
    static let flushEvery: Duration = .milliseconds(200)
    /// How often done rows are deleted and the WAL checkpointed with `fsync: interval`.
    static let intervalCheckpoint: Duration = .seconds(1)
    /// The same for `always` and `never` (only to keep the WAL and the table small).
    static let otherCheckpoint: Duration = .seconds(10)

    private let journal: Journal
    private let logger: BridgeLogger
    private let worker = Worker(name: "journal")
    private let started = Atomic<Bool>(false)

    init(journal: Journal, logger: BridgeLogger) {
        self.journal = journal
        self.logger = logger
    }

    /// Starts the thread (once).
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        worker.submit { [self] in loop() }
    }

    /// Stops the thread and waits for it.
    func stop() {
        worker.stop()
        worker.join()
    }

    private func loop() {
        let every = journal.fsync == .interval ? Self.intervalCheckpoint : Self.otherCheckpoint
        var lastCompaction = ContinuousClock.now
        while !worker.stopRequested(within: Self.flushEvery) {
            do {
                if ContinuousClock.now - lastCompaction >= every {
                    lastCompaction = .now
                    try journal.compact(checkpoint: true)
                } else {
                    try journal.flush()
                }
            } catch {
                logger.error("journal: \(error)")
            }
        }
    }
}
