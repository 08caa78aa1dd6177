import Foundation
import Synchronization

/// One output's queue and thread: it starts up to `concurrency` requests on its own libcurl
/// multi handle, sleeps in `curl_multi_poll` until a socket, a retry's time or a new item
/// (`curl_multi_wakeup`) needs it, retries with backoff, and finishes journal rows.
///
/// With a delivery store (the journal, or Redis streams with `state.redis`) the queue is the
/// store: the hand-off stores the deliveries and wakes the worker, which reads the next ones
/// (at most `window` in memory), so a dead service's backlog waits in the store. Without one,
/// items wait in memory, at most `memoryLimit`; more are counted as failed and logged.
final class OutputWorker: Sendable {
    let config: OutputConfig
    let kind: any OutputKind
    let stats: OutputStats
    /// Where the deliveries wait (`nil`: in memory).
    let store: (any OutputDeliveryStore)?
    /// The daily budget (`budget:`); `nil`: no limit.
    let budget: OutputBudget?
    /// With a `fallback` and a store that does not mark them (or none): the deliveries held
    /// and not yet accepted, by key and target (`OutputWorker.takeOverdue`).
    let unaccepted = Mutex<[String: PendingDelivery]>([:])
    let logger: BridgeLogger
    let reject: @Sendable (OutputRejection) -> Void
    let multi: CurlMulti<CurlTransfer>
    let shared = Mutex<Shared>(Shared())
    /// Deliveries may be waiting in the store that the worker has not read.
    let storeDirty: Atomic<Bool>
    /// Deliveries refused because the memory queue was full.
    let droppedCount = Atomic<Int>(0)
    /// With a store that keeps failed adds (Redis): where those wait until it answers, on disk
    /// (the journal's table), in order; `nil` without a journal (they wait in memory).
    let backlogStore: JournalDeliveryStore?
    /// Deliveries wait in `backlogStore` (new ones wait behind them).
    let backlogStored = Atomic<Bool>(false)
    private let worker = Worker(name: "pushbridge-output")
    /// The thread is about to sleep, or sleeps, in `curl_multi_poll` (`poke`).
    private let asleep = Atomic<Bool>(false)
    /// Work was handed over since the thread last looked (`poke`).
    private let poked = Atomic<Bool>(false)

    /// What the hand-off and the worker thread share.
    struct Shared {
        var inbox: [PendingDelivery] = []
        /// Deliveries the store could not take yet (it is unreachable): added, in order, once it answers.
        var backlog: [PendingDelivery] = []
        var stopBy: ContinuousClock.Instant?
    }

    /// Deliveries held in memory at most, with a journal (the rest wait on disk).
    static let window = 512
    /// Deliveries held at most without a journal.
    static let memoryLimit = 10_000

    /// The worker of `config` over `kind`; its deliveries wait in `store` (in memory without
    /// one); `journal` keeps its budget. `nil` when libcurl cannot be used.
    init?(config: OutputConfig, kind: any OutputKind, store: (any OutputDeliveryStore)?, journal: Journal?, logger: BridgeLogger,
          now: Double = Date().timeIntervalSince1970, reject: @escaping @Sendable (OutputRejection) -> Void) {
        guard let multi = CurlMulti<CurlTransfer>(maxHostConnections: config.concurrency) else { return nil }
        self.multi = multi
        self.config = config
        self.kind = kind
        self.store = store
        storeDirty = Atomic(store != nil)
        self.logger = logger
        self.reject = reject
        let stats = OutputStats(name: config.name, kind: kind.kindName)
        self.stats = stats
        budget = config.budget.map { OutputBudget(output: config.name, config: $0, journal: journal, stats: stats, logger: logger, now: now) }
        backlogStore = store?.traits.retriesAdds == true ? journal.map { JournalDeliveryStore(journal: $0) } : nil
        if let backlogStore, let n = try? backlogStore.initialPending(output: config.name), n > 0 {
            // Left by a run that stopped while the store could not be reached: added first.
            backlogStored.store(true, ordering: .relaxed)
            stats.pending.add(n, ordering: .relaxed)
            logger.info("output '\(config.name)': \(n) delivery(ies) wait in the journal for the \(store?.backend ?? "store")")
        }
        if let store {
            do {
                if let n = try store.initialPending(output: config.name) { stats.pending.store(n, ordering: .relaxed) }
            } catch {
                logger.error("output '\(config.name)': cannot count its stored deliveries: \(error)")
            }
        }
    }

    /// Starts the thread (it first sends what the store kept from an earlier run).
    func start() {
        worker.submit { [self] in run() }
        worker.stop()  // the thread ends with `run()`
    }

    /// Without a store (or when the journal failed): queues `delivery` in memory (never
    /// blocks). `false` when full.
    @discardableResult
    func enqueue(_ delivery: PendingDelivery) -> Bool {
        let added = shared.withLock { s -> Bool in
            guard s.stopBy == nil, stats.pending.load(ordering: .relaxed) < Self.memoryLimit else { return false }
            s.inbox.append(delivery)
            return true
        }
        guard added else {
            dropped(because: "\(Self.memoryLimit) deliveries waiting and no journal")
            return false
        }
        stats.pending.add(1, ordering: .relaxed)
        if config.fallback != nil { unaccepted.withLock { $0[Self.id(delivery)] = delivery } }
        poke()
        return true
    }

    /// With a store: `count` new deliveries were stored for this output (a shared store's are
    /// counted when this worker reads them: another replica may).
    func stored(_ count: Int) {
        if store?.traits.shared != true { stats.pending.add(count, ordering: .relaxed) }
        storeDirty.store(true, ordering: .sequentiallyConsistent)
        poke()
    }

    /// Tells the thread that work was handed over: wakes it only when it sleeps, or is about to,
    /// and could start a delivery (a busy thread looks at its inbox and the store before it
    /// sleeps again; one whose connections are all busy looks when one is free), so a flood of
    /// deliveries, or a slow service, costs no wake-up each.
    private func poke() {
        poked.store(true, ordering: .sequentiallyConsistent)
        if asleep.load(ordering: .sequentiallyConsistent) { multi.wakeUp() }
    }

    /// Delivers what it can until `deadline`, then stops (the rest stays in the store).
    func stop(by deadline: ContinuousClock.Instant) {
        shared.withLock { $0.stopBy = deadline }
        multi.wakeUp()
    }

    /// Waits until the thread ended (after `stop(by:)`), at most until `deadline`.
    func waitUntilStopped(deadline: ContinuousClock.Instant) {
        worker.join(until: deadline)
    }

    // MARK: The worker thread

    private func run() {
        var queue = WorkQueue()
        var active: [Int: (delivery: PendingDelivery, sent: ServiceRequest, message: OutputMessage)] = [:]
        var nextTag = 0
        var kept = StoreProgress()
        var failing = false
        // While the service fails, the whole output waits (one probe at a time, at the
        // backoff of its consecutive failures): a dead service costs one attempt per wait,
        // not one per queued delivery.
        var streak = 0
        var pausedUntil = 0.0
        while true {
            poked.store(false, ordering: .sequentiallyConsistent)  // before the inbox and the store are read
            // Taken whole (the hand-off starts a new array): emptying it in place while this
            // copy holds its buffer would allocate a new buffer of the old capacity each turn.
            let (inbox, stopBy) = shared.withLock { s in
                defer { s.inbox = [] }
                return (s.inbox, s.stopBy)
            }
            queue.append(contentsOf: inbox)
            let now = Date().timeIntervalSince1970
            queue.releaseDue(now: now)
            upkeep(&kept, queue: &queue, active: active.values.map(\.delivery), stopping: stopBy != nil, now: now)
            if stopBy == nil || store?.traits.shared != true { readStore(&kept, queue: &queue, active: active.count) }
            var done: [PendingDelivery] = []
            let limit = failing ? 1 : config.concurrency
            while multi.count < limit, Date().timeIntervalSince1970 >= pausedUntil, now < kept.startBefore, let d = queue.popReady() {
                nextTag += 1
                guard let (sent, message) = start(d, tag: nextTag, done: &done) else { continue }
                active[nextTag] = (d, sent, message)
            }
            multi.perform()
            for (transfer, answer) in multi.finished() {
                guard let entry = active.removeValue(forKey: transfer.tag) else { continue }
                var d = entry.delivery
                let now = Date().timeIntervalSince1970
                switch outcome(of: answer, to: entry.sent, message: entry.message, for: d) {
                case .finished:
                    if failing, case .response = answer {
                        failing = false
                        streak = 0
                        pausedUntil = 0
                        queue.releaseBackoffs(now: now)  // the service is back: no backoff waits on
                        logger.info("output '\(config.name)': delivering again")
                    }
                    finish(d, into: &done)
                case .retry(let after, let reason):
                    if !failing {
                        failing = true
                        logger.warning("output '\(config.name)': \(reason); retrying with backoff (nothing is lost\(store == nil ? " while the bridge runs" : ""))")
                    }
                    stats.retried.add(1, ordering: .relaxed)
                    d.attempts += 1
                    streak += 1
                    let wait = after ?? RetryAfter.backoff(attempt: streak)
                    pausedUntil = max(pausedUntil, now + wait)
                    d.due = now + (after ?? RetryAfter.backoff(attempt: d.attempts))
                    d.notBefore = after.map { now + $0 } ?? 0
                    queue.wait(d)
                case .resend:
                    d.resent = true
                    queue.putFirst(d)
                }
            }
            finishStored(done, progress: &kept)
            if let stopBy {
                // What is ready goes out; a delivery waiting for its retry is not waited for
                // (a dead service would hold every stop to the bound): it stays in the store.
                let clock = ContinuousClock.now
                let dirty = store?.traits.shared != true && storeDirty.load(ordering: .sequentiallyConsistent)
                let paused = failing && Date().timeIntervalSince1970 < pausedUntil
                let nothingLeft = active.isEmpty && (paused || (!dirty && queue.readyCount == 0))
                if nothingLeft || clock >= stopBy {
                    multi.abandonAll()
                    let left = queue.count + active.count
                    if left > 0 || dirty {
                        logger.info("output '\(config.name)': \(left) delivery(ies) not sent at the stop"
                                    + (store.map { "; kept in the \($0.backend) for the next start" } ?? " (no journal: lost)"))
                    }
                    stopped(&kept)
                    return
                }
            }
            // Sleep until a socket, libcurl's timer, a due retry, a new item or the deadline.
            var wait = 60_000.0
            let now2 = Date().timeIntervalSince1970
            let room = multi.count < (failing ? 1 : config.concurrency)
            if now2 < pausedUntil { wait = min(wait, (pausedUntil - now2) * 1000) } else if room && queue.readyCount > 0 { wait = 0 }
            // While it cannot start one more (all its connections busy, or a failing service's
            // pause), a new item changes nothing: it waits for a socket or the pause's end,
            // unwoken by the hand-overs (a slow service costs the message path no wake-up each).
            let canStart = room && now2 >= pausedUntil && now2 < kept.startBefore
            if let due = queue.nextDue { wait = min(wait, max(0, (due - Date().timeIntervalSince1970) * 1000)) }
            if let due = kept.nextUpkeep { wait = min(wait, max(0, (due - Date().timeIntervalSince1970) * 1000)) }
            if let stopBy {
                let c = (stopBy - ContinuousClock.now).components
                wait = min(wait, max(0, Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15))
            }
            // No sleep when work was handed over since the inbox and the store were read
            // (`poke` wakes a sleep that began before its hand-over).
            asleep.store(canStart, ordering: .sequentiallyConsistent)
            if canStart && poked.load(ordering: .sequentiallyConsistent) { wait = 0 }
            if wait > 0 { multi.wait(milliseconds: Int(wait.rounded(.up))) }
            asleep.store(false, ordering: .sequentiallyConsistent)
        }
    }
}
