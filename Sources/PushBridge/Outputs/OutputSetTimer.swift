import Foundation

/// The outputs' timed work: deliveries handed to a fallback when their output has not
/// accepted them within `fallback_after`, and the budgets' summaries, all at the clock's time.
extension OutputSet {
    /// Hands the late deliveries to their outputs' fallbacks and sends the budget summaries
    /// due by now, then arms the timer for the next (a test with a fake clock calls it).
    func tick() {
        ticking.withLock { _ in tickNow() }
    }

    private func tickNow() {
        armed.withLock { $0 = nil }
        let now = clock()
        var next = Double.infinity
        for w in workers {
            if let name = w.config.fallback, let fallback = workers.first(where: { $0.config.name == name }) {
                let after = w.config.fallbackAfter.seconds
                handOver(w.takeOverdue(handedBefore: now - after), from: w, to: fallback)
                if let oldest = w.oldestUnaccepted { next = min(next, oldest + after) }
            }
            if let budget = w.budget {
                let shared = store?.traits.shared == true
                for r in budget.release(now: now, targets: { w.kind.targets(for: $0) }, storeDeliveries: !shared) {
                    if shared {
                        hand(r.targets.map { (w.config.name, r.item.key, $0) }, owners: r.targets.map { _ in w }, item: r.item, created: now)
                    } else if let stored = r.stored {
                        let added = stored.filter { $0 }.count
                        if added > 0 { w.stored(added) }
                    } else {
                        for target in r.targets {
                            w.enqueue(PendingDelivery(row: nil, key: r.item.key, target: target, item: r.item.json, created: now))
                        }
                    }
                }
                if let due = budget.nextDue { next = min(next, due) }
            }
        }
        if next < .infinity { arm(at: next) }
    }

    /// Arms the timer for `due` unless it is armed for that time or an earlier one.
    func arm(at due: Double) {
        guard let timer else { return }
        let changed = armed.withLock { current -> Bool in
            if let current, current <= due { return false }
            current = due
            return true
        }
        guard changed else { return }
        timer.arm(after: .seconds(min(max(0, due - clock()), 86_400 * 365)), leeway: .milliseconds(50))
    }

    /// `late` (deliveries of `output`) handed to `fallback` as well, each item once; the
    /// first output keeps retrying them.
    private func handOver(_ late: [PendingDelivery], from output: OutputWorker, to fallback: OutputWorker) {
        guard !late.isEmpty else { return }
        output.stats.fellBack.add(late.count, ordering: .relaxed)
        var seen: Set<String> = []
        for d in late where seen.insert(d.key).inserted {
            offer(OutputItem(key: d.key, json: d.item, files: d.files), only: fallback)
        }
        output.markFellBack(late)
        logger.warning("output '\(output.config.name)': \(late.count) delivery(ies) not accepted within \(output.config.fallbackAfter.text) ("
                       + seen.sorted().prefix(5).joined(separator: ", ") + (seen.count > 5 ? ", …" : "")
                       + "); handed to its fallback '\(fallback.config.name)' as well (it keeps retrying them)")
    }
}
