/// The bounded key table under every remembering filter (`KeyedWindows`, `ChangedValues`):
/// at most `capacity` keys, the one written least recently forgotten first, and — when the
/// journal keeps filter memory — the keys changed since the last `takeChanges`.
///
/// A value type kept inside its owner's `Mutex`. Each write appends the key to the order
/// queue and stamps the entry with that record's position; a record whose key carries
/// another stamp is stale (the key was written again later), so a rewrite costs no search.
/// The queue holds keys only (their text is shared with the table, not copied): a key costs
/// its table slot, its text and one queue record (bench/README.md, "Cost that stays flat").
struct BoundedKeys<Value> {
    let capacity: Int
    let tracksChanges: Bool

    private struct Entry {
        var value: Value
        /// The position of the key's live record in the order queue (`base + index`).
        var stamp: Int
    }

    private var entries: [String: Entry] = [:]
    /// The keys in the order they were written, oldest first; `queue[i]` is at position `base + i`.
    private var queue: [String] = []
    private var head = 0
    private var base = 0
    private var dirty: Set<String> = []
    /// Rows to put back at the first use of the table (`restoreLater`), decoded then.
    private var deferred: (@Sendable () -> [(key: String, value: Value)])?

    init(capacity: Int, tracksChanges: Bool) {
        self.capacity = max(1, capacity)
        self.tracksChanges = tracksChanges
    }

    var count: Int { entries.count }

    subscript(key: String) -> Value? { entries[key]?.value }

    /// Writes `value` as the newest key; returns how many keys were forgotten to make room.
    mutating func set(_ key: String, _ value: Value) -> Int {
        append(key, value)
        if tracksChanges { dirty.insert(key) }
        let evicted = evictBeyondCapacity()
        compact()
        return evicted
    }

    /// Puts back keys a previous process stored, oldest first, as `set` would one by one, but
    /// with the table and the queue sized once; none of them counts as changed (they are in the
    /// journal already). Call on an empty table.
    mutating func restore(_ rows: some Collection<(key: String, value: Value)>) {
        entries.reserveCapacity(Swift.min(capacity, entries.count + rows.count))
        queue.reserveCapacity(queue.count + rows.count)
        for row in rows { append(row.key, row.value) }
        _ = evictBeyondCapacity()
        compact()
        dirty.removeAll()
    }

    /// Puts back a previous process's keys at the first use of the table, not now: the owner
    /// calls `settle()` under its lock before every use, so no decision is made without them,
    /// and the start of the bridge does not wait for a million keys (`FilterMemory` has them
    /// settled on a thread of their own right away). `load` returns the rows, oldest first.
    mutating func restoreLater(_ load: @escaping @Sendable () -> [(key: String, value: Value)]) {
        settle()
        deferred = load
    }

    /// Puts back the rows of `restoreLater` if that is still to do.
    mutating func settle() {
        guard let load = deferred else { return }
        deferred = nil
        restore(load())
    }

    /// Replaces the value of a remembered key without making it newer (nothing to persist:
    /// what changes here is derived, such as hits pruned out of their window).
    mutating func update(_ key: String, _ value: Value) {
        entries[key]?.value = value
    }

    /// Forgets the oldest keys while `isStale` says so (stops at the first live one).
    mutating func dropOldest(while isStale: (Value) -> Bool) {
        while head < queue.count {
            let key = queue[head]
            guard let entry = entries[key], entry.stamp == base + head else {
                head += 1   // stale record: the key was written again later, or evicted
                continue
            }
            guard isStale(entry.value) else { break }
            entries[key] = nil
            if tracksChanges { dirty.insert(key) }
            head += 1
        }
    }

    /// The keys changed since the last call, with their values (`nil`: forgotten).
    mutating func takeChanges() -> [(key: String, value: Value?)] {
        defer { dirty.removeAll() }
        return dirty.map { ($0, entries[$0]?.value) }
    }

    /// Stores `value` under `key` with the next record of the queue.
    private mutating func append(_ key: String, _ value: Value) {
        entries[key] = Entry(value: value, stamp: base + queue.count)
        queue.append(key)
    }

    /// Forgets the oldest keys while there are more than `capacity`; returns how many.
    private mutating func evictBeyondCapacity() -> Int {
        var evicted = 0
        while entries.count > capacity, head < queue.count {
            let oldest = queue[head]
            let position = base + head
            head += 1
            if entries[oldest]?.stamp == position {
                entries[oldest] = nil
                evicted += 1
                if tracksChanges { dirty.insert(oldest) }
            }
        }
        return evicted
    }

    /// Keeps the order queue proportional to the live keys.
    private mutating func compact() {
        if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            base += head
            head = 0
        }
        if queue.count - head > 2 * entries.count + 1024 {
            // Mostly stale records (keys written again and again): the live ones, renumbered.
            let live = entries.map { (key: $0.key, stamp: $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
            queue = live.map(\.key)
            base = 0
            head = 0
            for (position, record) in live.enumerated() { entries[record.key]?.stamp = position }
        }
    }
}
