import Foundation
import Synchronization

/// Writes the filter memory's changes to the journal in batches, on a thread of its own:
/// every ``interval`` (so a crash forgets at most that much) and once more at stop.
/// The message path only marks keys as changed; it never waits for a write.
final class FilterMemoryWriter: Sendable {
    /// How often changes are written.
    static let interval: Duration = .milliseconds(500)

    private let journal: Journal
    private let memory: FilterMemory
    private let clock: StageClock
    private let logger: BridgeLogger
    private let worker = Worker(name: "filter-memory")
    private let started = Atomic<Bool>(false)

    init(journal: Journal, memory: FilterMemory, clock: StageClock = .system, logger: BridgeLogger) {
        self.journal = journal
        self.memory = memory
        self.clock = clock
        self.logger = logger
    }

    /// Puts back what the journal holds into `memory` (before the first pipeline is built).
    static func restore(_ memory: FilterMemory, from journal: Journal, clock: StageClock = .system,
                        logger: BridgeLogger) {
        do {
            let rows = try journal.loadFilterMemory()
            memory.restore(rows, clocks: ClockReading(clock))
            if !rows.isEmpty { logger.info("filter memory: \(rows.count) key(s) restored from the journal") }
        } catch {
            logger.error("journal: cannot read the filter memory: \(error); filters start with none")
        }
    }

    /// Starts the thread (once).
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        worker.submit { [self] in
            while !worker.stopRequested(within: Self.interval) { write() }
            write()
        }
    }

    /// Writes what is left and stops the thread.
    func stop() {
        guard started.load(ordering: .acquiring) else {
            write()
            return
        }
        worker.stop()
        worker.join()
    }

    /// One batch now.
    func write() {
        let changes = memory.takeChanges(ClockReading(clock))
        guard !changes.isEmpty else { return }
        do {
            try journal.saveFilterMemory(changes)
        } catch {
            logger.error("journal: cannot write the filter memory (\(changes.rows.count) key(s)): \(error)")
        }
    }
}
