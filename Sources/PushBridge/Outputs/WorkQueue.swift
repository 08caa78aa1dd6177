/// A worker's deliveries: those ready to start, oldest first, and those waiting for a retry.
struct WorkQueue {
    private var ready: [PendingDelivery] = []
    private var head = 0
    private var waiting: [PendingDelivery] = []

    var readyCount: Int { ready.count - head }
    var count: Int { readyCount + waiting.count }
    /// The earliest retry time.
    var nextDue: Double? { waiting.lazy.map(\.due).min() }

    /// Every delivery in it, ready or waiting.
    var all: [PendingDelivery] { Array(ready[head...]) + waiting }

    /// Removes the deliveries `matching` and returns them.
    mutating func remove(where matching: (PendingDelivery) -> Bool) -> [PendingDelivery] {
        let removed = all.filter(matching)
        guard !removed.isEmpty else { return [] }
        ready = Array(ready[head...]).filter { !matching($0) }
        head = 0
        waiting.removeAll(where: matching)
        return removed
    }

    mutating func append(contentsOf items: [PendingDelivery]) {
        ready.append(contentsOf: items)
    }

    mutating func popReady() -> PendingDelivery? {
        guard head < ready.count else { return nil }
        let d = ready[head]
        head += 1
        if head > 1024 && head * 2 > ready.count {
            ready.removeFirst(head)
            head = 0
        }
        return d
    }

    /// `d` is the next to start (it is sent again at once).
    mutating func putFirst(_ d: PendingDelivery) {
        if head > 0 {
            head -= 1
            ready[head] = d
        } else {
            ready.insert(d, at: 0)
        }
    }

    /// `d` waits until its `due` time.
    mutating func wait(_ d: PendingDelivery) { waiting.append(d) }

    /// Moves the retries due by `now` to the ready ones (oldest item first).
    mutating func releaseDue(now: Double) {
        release { $0.due <= now }
    }

    /// Moves every retry to the ready ones except those whose service asked them to wait
    /// past `now` (`Retry-After`): the service is back, the backoff waits end.
    mutating func releaseBackoffs(now: Double) {
        release { $0.due <= now || $0.notBefore <= now }
    }

    private mutating func release(where isReady: (PendingDelivery) -> Bool) {
        guard waiting.contains(where: isReady) else { return }
        let due = waiting.filter(isReady).sorted { ($0.row ?? 0, $0.created) < ($1.row ?? 0, $1.created) }
        waiting.removeAll(where: isReady)
        ready.append(contentsOf: due)
    }
}
