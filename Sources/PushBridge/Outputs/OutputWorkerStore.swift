import Foundation

/// A worker's side of its delivery store (`OutputDeliveryStore`): reading the next
/// deliveries, finishing them, the periodic upkeep of a shared store (keeping its entries,
/// claiming a stopped replica's), and the deliveries waiting in memory for an unreachable store.
extension OutputWorker {
    /// The worker thread's state of its store.
    struct StoreProgress {
        var cursor = DeliveryCursor()
        /// Finished deliveries the store could not mark yet (a shared store: tried again at each upkeep).
        var unfinished: [PendingDelivery] = []
        /// Held deliveries may be started until then (see `DeliveryUpkeep.startBefore`).
        var startBefore = Double.infinity
        /// When the next upkeep is due; `nil`: the store needs none.
        var nextUpkeep: Double? = 0
    }

    /// With a store that keeps failed adds: waits (in order) for the store to answer, counted
    /// as pending: in the journal (it survives a stop or a crash), or without one in memory —
    /// `false` when `memoryLimit` deliveries already wait there (dropped, logged).
    @discardableResult
    func waitForStore(_ delivery: PendingDelivery) -> Bool {
        if let backlogStore {
            do {
                let new = try backlogStore.add([DeliveryRowKey(output: config.name, key: delivery.key, target: delivery.target)],
                                               item: delivery.item, files: delivery.files, created: delivery.created)
                backlogStored.store(true, ordering: .sequentiallyConsistent)
                if new.first == true { stats.pending.add(1, ordering: .relaxed) }
                return true
            } catch {
                logger.error("output '\(config.name)': cannot keep a delivery in the journal while the \(store?.backend ?? "store") is away: \(error); it waits in memory")
            }
        }
        let added = shared.withLock { s -> Bool in
            guard s.backlog.count < Self.memoryLimit else { return false }
            s.backlog.append(delivery)
            return true
        }
        guard added else {
            dropped(because: "\(Self.memoryLimit) deliveries wait for the \(store?.backend ?? "store")")
            return false
        }
        stats.pending.add(1, ordering: .relaxed)
        return true
    }

    /// A delivery refused because `reason` (memory is full): counted as failed; logged for the
    /// first drop and every 1000th after it (a dead service under load).
    func dropped(because reason: String) {
        stats.failed.add(1, ordering: .relaxed)
        let dropped = droppedCount.add(1, ordering: .relaxed).newValue
        if dropped % 1000 == 1 {
            logger.error("output '\(config.name)': \(reason); dropping new ones (\(dropped) so far)")
        }
    }

    /// Whether deliveries wait for the store (new ones wait behind them, in order).
    var hasBacklog: Bool {
        backlogStored.load(ordering: .sequentiallyConsistent) || shared.withLock { !$0.backlog.isEmpty }
    }

    /// Reads the next deliveries from the store when it may hold some and there is room.
    func readStore(_ progress: inout StoreProgress, queue: inout WorkQueue, active: Int) {
        guard let store, queue.count + active < Self.window, storeDirty.exchange(false, ordering: .sequentiallyConsistent) else { return }
        let room = Self.window - queue.count - active
        do {
            let read = try store.read(output: config.name, cursor: &progress.cursor, limit: room)
            if read.count == room { storeDirty.store(true, ordering: .sequentiallyConsistent) }
            took(read, into: &queue)
        } catch {
            // A shared store logs its outage once; the next upkeep reads again.
            if !store.traits.shared { logger.error("output '\(config.name)': cannot read its stored deliveries: \(error)") }
        }
    }

    /// Marks `done` finished in the store (with the earlier ones it could not mark).
    func finishStored(_ done: [PendingDelivery], progress: inout StoreProgress) {
        guard let store, !done.isEmpty else { return }
        do { try store.finish(done, output: config.name) } catch {
            if store.traits.upkeepInterval != nil {
                progress.unfinished += done
            } else {
                logger.error("output '\(config.name)': cannot finish its stored deliveries: \(error) (they are sent again after a restart)")
            }
        }
    }

    /// The store's upkeep when due: the deliveries waiting in memory added, the unfinished
    /// ones finished, the held ones kept (those another replica took dropped), a stopped
    /// replica's claimed, and a read of what no consumer had yet.
    func upkeep(_ progress: inout StoreProgress, queue: inout WorkQueue, active activeNow: @autoclosure () -> [PendingDelivery],
                stopping: Bool, now: Double) {
        guard let store, let interval = store.traits.upkeepInterval else {
            progress.nextUpkeep = nil
            return
        }
        guard let due = progress.nextUpkeep, now >= due else { return }
        progress.nextUpkeep = now + interval
        let active = activeNow()
        flushBacklog(store)
        if !progress.unfinished.isEmpty {
            let retry = progress.unfinished
            progress.unfinished = []
            finishStored(retry, progress: &progress)
        }
        let claimRoom = stopping || progress.cursor.ownEntries != nil ? 0 : max(0, Self.window - queue.count - active.count)
        let result = store.upkeep(output: config.name, held: queue.all + active + progress.unfinished, claimRoom: claimRoom)
        if let until = result.startBefore { progress.startBefore = until }
        if !result.lost.isEmpty {
            let dropped = queue.remove { $0.entry.map(result.lost.contains) ?? false }
            if !dropped.isEmpty {
                stats.pending.subtract(dropped.count, ordering: .relaxed)
                if config.fallback != nil { unaccepted.withLock { open in for d in dropped { open[Self.id(d)] = nil } } }
                logger.warning("output '\(config.name)': \(dropped.count) delivery(ies) taken over by another replica; not sent here")
            }
        }
        took(result.claimed, into: &queue)
        // Entries another replica added while this one had no reason to look.
        if !result.unreachable { storeDirty.store(true, ordering: .sequentiallyConsistent) }
    }

    /// At the stop: one last try for what waits in memory; what is still there is lost (logged).
    func stopped(_ progress: inout StoreProgress) {
        guard let store else { return }
        flushBacklog(store)
        if !progress.unfinished.isEmpty {
            let retry = progress.unfinished
            progress.unfinished = []
            do { try store.finish(retry, output: config.name) } catch {
                logger.warning("output '\(config.name)': \(retry.count) delivered delivery(ies) not acknowledged in the \(store.backend): "
                               + "\(error) (whoever takes them over recognises them and does not send them again)")
            }
        }
        let left = shared.withLock { $0.backlog.count }
        if left > 0 {
            logger.error("output '\(config.name)': \(left) delivery(ies) never reached the \(store.backend) (unreachable): lost at the stop")
        }
        if backlogStored.load(ordering: .sequentiallyConsistent) {
            logger.warning("output '\(config.name)': deliveries wait in the journal for the \(store.backend) (unreachable); they are added at the next start")
        }
    }

    /// `deliveries` read or claimed: queued (a shared store's counted as pending, and
    /// remembered for the fallback).
    private func took(_ deliveries: [PendingDelivery], into queue: inout WorkQueue) {
        guard let store, !deliveries.isEmpty else { return }
        if store.traits.shared { stats.pending.add(deliveries.count, ordering: .relaxed) }
        if config.fallback != nil, !store.traits.marksFallbacks {
            unaccepted.withLock { open in for d in deliveries { open[Self.id(d)] = d } }
        }
        queue.append(contentsOf: deliveries)
    }

    /// Adds the deliveries waiting for the store (in the journal first, then in memory), in
    /// order, until one fails.
    private func flushBacklog(_ store: any OutputDeliveryStore) {
        if let backlogStore, backlogStored.load(ordering: .sequentiallyConsistent) {
            guard flushStoredBacklog(backlogStore, into: store) else { return }
        }
        let waiting = shared.withLock { $0.backlog }
        guard !waiting.isEmpty else { return }
        var added = 0
        for d in waiting {
            do {
                _ = try store.add([DeliveryRowKey(output: config.name, key: d.key, target: d.target)], item: d.item, files: d.files,
                                  created: d.created)
            } catch { break }
            added += 1
        }
        guard added > 0 else { return }
        shared.withLock { $0.backlog.removeFirst(added) }
        stats.pending.subtract(added, ordering: .relaxed)
        storeDirty.store(true, ordering: .sequentiallyConsistent)
        logger.info("output '\(config.name)': \(added) delivery(ies) that waited in memory stored in the \(store.backend)")
    }

    /// Moves what waits in the journal into `store`, in order, a batch at a time, each row
    /// finished in the journal once `store` has it; `true` when none is left.
    private func flushStoredBacklog(_ journal: JournalDeliveryStore, into store: any OutputDeliveryStore) -> Bool {
        var moved = 0
        defer {
            if moved > 0 {
                stats.pending.subtract(moved, ordering: .relaxed)
                storeDirty.store(true, ordering: .sequentiallyConsistent)
                logger.info("output '\(config.name)': \(moved) delivery(ies) that waited in the journal stored in the \(store.backend)")
            }
        }
        while true {
            var cursor = DeliveryCursor()
            guard let rows = try? journal.read(output: config.name, cursor: &cursor, limit: Self.window) else { return false }
            if rows.isEmpty {
                backlogStored.store(false, ordering: .sequentiallyConsistent)
                // One handed over meanwhile may have gone to the journal after the read: look again.
                if let again = try? journal.read(output: config.name, cursor: &cursor, limit: 1), !again.isEmpty {
                    backlogStored.store(true, ordering: .sequentiallyConsistent)
                    continue
                }
                return true
            }
            for d in rows {
                do {
                    _ = try store.add([DeliveryRowKey(output: config.name, key: d.key, target: d.target)], item: d.item, files: d.files,
                                      created: d.created)
                    try journal.finish([d], output: config.name)
                } catch { return false }
                moved += 1
            }
        }
    }
}
