/// The bounded key table under every remembering filter (`KeyedWindows`, `ChangedValues`):
/// at most `capacity` keys, the one written least recently forgotten first, and — when the
/// journal keeps filter memory — the keys changed since the last `takeChanges`.
///
/// A value type kept inside its owner's `Mutex`. Each write stamps the key; the order queue
/// holds (key, stamp) records and skips stale ones, so a rewrite costs no search.
struct BoundedKeys<Value> {
    let capacity: Int
    let tracksChanges: Bool

    private struct Entry {
        var value: Value
        var stamp: UInt64
    }

    private var entries: [String: Entry] = [:]
    private var queue: [(key: String, stamp: UInt64)] = []
    private var head = 0
    private var nextStamp: UInt64 = 0
    private var dirty: Set<String> = []

    init(capacity: Int, tracksChanges: Bool) {
        self.capacity = max(1, capacity)
        self.tracksChanges = tracksChanges
    }

    var count: Int { entries.count }

    subscript(key: String) -> Value? { entries[key]?.value }

    /// Writes `value` as the newest key; returns how many keys were forgotten to make room.
    mutating func set(_ key: String, _ value: Value) -> Int {
        let stamp = nextStamp
        nextStamp += 1
        entries[key] = Entry(value: value, stamp: stamp)
        queue.append((key, stamp))
        if tracksChanges { dirty.insert(key) }
        var evicted = 0
        while entries.count > capacity, head < queue.count {
            let oldest = queue[head]
            head += 1
            if entries[oldest.key]?.stamp == oldest.stamp {
                entries[oldest.key] = nil
                evicted += 1
                if tracksChanges { dirty.insert(oldest.key) }
            }
        }
        compact()
        return evicted
    }

    /// Replaces the value of a remembered key without making it newer (nothing to persist:
    /// what changes here is derived, such as hits pruned out of their window).
    mutating func update(_ key: String, _ value: Value) {
        entries[key]?.value = value
    }

    /// Forgets the oldest keys while `isStale` says so (stops at the first live one).
    mutating func dropOldest(while isStale: (Value) -> Bool) {
        while head < queue.count {
            let record = queue[head]
            guard let entry = entries[record.key], entry.stamp == record.stamp else {
                head += 1   // stale record: the key was written again later, or evicted
                continue
            }
            guard isStale(entry.value) else { break }
            entries[record.key] = nil
            if tracksChanges { dirty.insert(record.key) }
            head += 1
        }
    }

    /// The keys changed since the last call, with their values (`nil`: forgotten).
    mutating func takeChanges() -> [(key: String, value: Value?)] {
        defer { dirty.removeAll() }
        return dirty.map { ($0, entries[$0]?.value) }
    }

    /// Keeps the order queue proportional to the live keys.
    private mutating func compact() {
        if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        if queue.count - head > 2 * entries.count + 1024 {
            queue = entries.map { ($0.key, $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
            head = 0
        }
    }
}
