import Synchronization

/// The newest bytes of each topic a `from_topic` attachment reads (docs/attachments.md):
/// one entry per topic, replaced by every new message, and the alerts waiting for bytes.
///
/// Bytes over the largest type limit are not kept (only their size, so a waiting alert
/// learns why); all entries together stay under `capacity` bytes, the oldest dropped first.
/// Called from the intake connection's thread (`store`) and the gathering (`take`, `cancel`).
final class TopicBytes: Sendable {
    /// One topic's newest message.
    struct Entry: Sendable {
        var bytes: [UInt8]
        /// When it arrived (seconds since 1970).
        var at: Double
        /// The size it had when it was too large to keep (`bytes` is then empty).
        var droppedSize: Int?
    }

    /// An alert waiting for bytes on a topic; `deliver` is called at most once.
    struct Waiter: Sendable {
        let id: Int
        let deliver: @Sendable (Entry) -> Void
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var heldBytes = 0
        var waiters: [String: [Waiter]] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    /// The most bytes one entry may hold.
    let largest: Int
    /// The most bytes all entries hold together.
    let capacity: Int

    init(largest: Int, capacity: Int) {
        self.largest = largest
        self.capacity = max(capacity, largest)
    }

    /// Bytes held now (the stats' `attachment_cache_bytes`).
    var heldBytes: Int { state.withLock { $0.heldBytes } }

    /// Keeps `bytes` as `topic`'s newest and hands them to the alerts waiting for that topic.
    /// The array is kept as it is (shared, not copied: the message's own payload).
    func store(topic: String, bytes: [UInt8], at time: Double) {
        let entry: Entry
        if bytes.count > largest {
            entry = Entry(bytes: [], at: time, droppedSize: bytes.count)
        } else {
            entry = Entry(bytes: bytes, at: time)
        }
        let waiting = state.withLock { s -> [Waiter] in
            if let old = s.entries[topic] { s.heldBytes -= old.bytes.count }
            s.entries[topic] = entry
            s.heldBytes += entry.bytes.count
            if s.heldBytes > capacity { Self.evict(&s, keeping: topic, capacity: capacity) }
            return s.waiters.removeValue(forKey: topic) ?? []
        }
        for waiter in waiting { waiter.deliver(entry) }
    }

    /// Drops the oldest entries (never `keeping`) until the held bytes fit.
    private static func evict(_ s: inout State, keeping: String, capacity: Int) {
        let oldest = s.entries.filter { $0.key != keeping }.sorted { $0.value.at < $1.value.at }
        for (topic, entry) in oldest where s.heldBytes > capacity {
            s.entries[topic] = nil
            s.heldBytes -= entry.bytes.count
        }
    }

    /// The entry of `topic` when it arrived at or after `since`; otherwise `deliver` is
    /// registered for the next bytes on `topic` and `nil` returned with the waiter's id
    /// (give it to `cancel`).
    func take(topic: String, since: Double, orWait deliver: @escaping @Sendable (Entry) -> Void) -> (entry: Entry?, waiter: Int?) {
        state.withLock { s in
            if let e = s.entries[topic], e.at >= since { return (e, nil) }
            let id = s.nextWaiter
            s.nextWaiter += 1
            s.waiters[topic, default: []].append(Waiter(id: id, deliver: deliver))
            return (nil, id)
        }
    }

    /// Forgets the waiter `id` on `topic` (its alert stopped waiting).
    func cancel(topic: String, waiter id: Int) {
        state.withLock { s in
            guard var list = s.waiters[topic] else { return }
            list.removeAll { $0.id == id }
            s.waiters[topic] = list.isEmpty ? nil : list
        }
    }

    /// Alerts waiting now, over all topics.
    var waiting: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }
}
