import Synchronization

/// Bounded, thread-safe per-key hit memory behind the `dedupe` and `rate_limit` filters.
///
/// Each key remembers the times (on the stage's monotonic clock) of the hits it let through,
/// at most `max` of them. Memory is bounded: at most ``capacity`` keys (`max_keys`, 10 000 by
/// default) are kept; admitting a new key beyond that evicts the key whose last admitted hit
/// is the oldest, and counts the eviction. Keys whose hits have all left their window are
/// dropped as they reach the front. A hit that is refused is not recorded, so a steady stream
/// of repeats does not extend the window: `dedupe` lets one through per window measured from
/// the last one let through.
final class KeyedWindows: FilterMemoryStore {
    let capacity: Int
    let filterName: String
    private let evictionEvents: EvictionEvents
    /// Each key's admitted hits, ascending.
    private let table: Mutex<BoundedKeys<[Duration]>>

    init(capacity: Int = FilterConfig.defaultMaxKeys, filterName: String = "", tracksChanges: Bool = false,
         evictionEvents: EvictionEvents = EvictionEvents()) {
        self.capacity = max(1, capacity)
        self.filterName = filterName
        self.evictionEvents = evictionEvents
        table = Mutex(BoundedKeys(capacity: capacity, tracksChanges: tracksChanges))
    }

    var evictions: Int { evictionEvents.count }

    /// Lets a hit of `key` at `now` through when fewer than `max` earlier hits lie within
    /// `window`, and records it; returns `false` (recording nothing) otherwise.
    func admit(_ key: String, now: Duration, window: Duration, max: Int) -> Bool {
        let (admitted, evicted) = table.withLock { t -> (Bool, Int) in
            t.dropOldest { hits in hits.last.map { now - $0 >= window } ?? true }
            var hits = t[key] ?? []
            if let firstLive = hits.firstIndex(where: { now - $0 < window }) {
                hits.removeFirst(firstLive)
            } else {
                hits.removeAll()
            }
            guard hits.count < max else {
                t.update(key, hits)
                return (false, 0)
            }
            hits.append(now)
            return (true, t.set(key, hits))
        }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
        return admitted
    }

    /// Number of keys currently remembered.
    var count: Int { table.withLock { $0.count } }

    /// `true` when `key` is remembered.
    func contains(_ key: String) -> Bool { table.withLock { $0[key] != nil } }

    /// The keys changed since the last call: each remembered one with its hits as UNIX
    /// seconds (comma-separated), and `nil` for one that is gone.
    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)] {
        table.withLock { $0.takeChanges() }.map { change in
            (change.key, change.value.map { hits in
                hits.map { JSONValue.numberText(clocks.wall(of: $0)) }.joined(separator: ",")
            })
        }
    }

    /// Puts back what a previous process remembered (hits given as UNIX seconds), the key
    /// with the oldest last hit first, within ``capacity``.
    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading) {
        var decoded: [(key: String, hits: [Duration])] = rows.compactMap { row in
            let hits = row.value.split(separator: ",").compactMap { Double($0) }.map { clocks.monotonic(ofWall: $0) }
            return hits.isEmpty ? nil : (row.key, hits.sorted())
        }
        decoded.sort { $0.hits.last! < $1.hits.last! }
        table.withLock { t in
            for row in decoded.suffix(capacity) { _ = t.set(row.key, row.hits) }
            _ = t.takeChanges()  // they are in the journal already
        }
    }
}
