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
    /// Each key's admitted hits.
    private let table: Mutex<BoundedKeys<Hits>>

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
        let now = now.nanoseconds, window = window.nanoseconds
        let (admitted, evicted) = withTable { t -> (Bool, Int) in
            t.dropOldest { hits in now - hits.newest >= window }
            guard let remembered = t[key] else {
                return max > 0 ? (true, t.set(key, Hits(now))) : (false, 0)
            }
            if remembered.isSingle {
                // A dedupe's usual cases, without an array: its one hit has left the window, or not.
                if now - remembered.newest >= window { return max > 0 ? (true, t.set(key, Hits(now))) : (false, 0) }
                if max <= 1 { return (false, 0) }
            }
            var hits = remembered.all
            if let firstLive = hits.firstIndex(where: { now - $0 < window }) {
                hits.removeFirst(firstLive)
            } else {
                hits.removeAll()
            }
            guard hits.count < max else {
                if hits.count < remembered.count, let pruned = Hits(hits) { t.update(key, pruned) }
                return (false, 0)
            }
            hits.append(now)
            return (true, t.set(key, Hits(hits)!))
        }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
        return admitted
    }

    /// Number of keys currently remembered.
    var count: Int { withTable { $0.count } }

    /// `true` when `key` is remembered.
    func contains(_ key: String) -> Bool { withTable { $0[key] != nil } }

    /// The keys changed since the last call: each remembered one with its hits as UNIX
    /// seconds (comma-separated), and `nil` for one that is gone.
    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)] {
        withTable { $0.takeChanges() }.map { change in
            (change.key, change.value.map { hits in
                hits.isSingle ? JSONValue.numberText(clocks.wall(of: .nanoseconds(hits.newest)))
                    : hits.all.map { JSONValue.numberText(clocks.wall(of: .nanoseconds($0))) }.joined(separator: ",")
            })
        }
    }

    /// Puts back what a previous process remembered (hits given as UNIX seconds), the key
    /// with the oldest last hit first, within ``capacity``: at the first use of the memory
    /// (``warm()``, or any call), so that a start with a million keys does not wait for them.
    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading) {
        let capacity = self.capacity
        table.withLock { $0.restoreLater { Array(Self.decode(rows, clocks).suffix(capacity)) } }
    }

    /// Puts back the rows of `restore` now if that is still to do.
    func warm() { withTable { _ in () } }

    /// The table, with restored rows put back first.
    private func withTable<R: Sendable>(_ body: (inout BoundedKeys<Hits>) -> R) -> R {
        table.withLock { t in
            t.settle()
            return body(&t)
        }
    }

    /// Stored rows (hits as UNIX seconds) as hits, the key with the oldest last hit first.
    private static func decode(_ rows: [(key: String, value: String)], _ clocks: ClockReading)
        -> [(key: String, value: Hits)] {
        var decoded: [(key: String, value: Hits)] = []
        decoded.reserveCapacity(rows.count)
        for row in rows {
            if !row.value.utf8.contains(UInt8(ascii: ",")) {
                // One hit (every dedupe's row): no list to split and sort.
                if let seconds = Double(row.value) {
                    decoded.append((row.key, Hits(clocks.monotonic(ofWall: seconds).nanoseconds)))
                }
                continue
            }
            let hits = row.value.split(separator: ",").compactMap { Double($0) }
                .map { clocks.monotonic(ofWall: $0).nanoseconds }
            if let remembered = Hits(hits.sorted()) { decoded.append((row.key, remembered)) }
        }
        decoded.sort { $0.value.newest < $1.value.newest }
        return decoded
    }
}

/// One key's admitted hits, ascending, in nanoseconds of the stage's monotonic clock: the newest
/// inline and the older ones (a `rate_limit` with `max` above 1) in an array that a `dedupe`'s
/// single hit never allocates. Never empty.
struct Hits {
    /// The newest hit.
    let newest: Int64
    /// The hits before it, ascending; `nil` when there are none.
    private let older: [Int64]?

    /// One hit.
    init(_ hit: Int64) {
        newest = hit
        older = nil
    }

    /// `hits` (ascending), or `nil` when there are none.
    init?(_ hits: [Int64]) {
        guard let last = hits.last else { return nil }
        newest = last
        older = hits.count > 1 ? Array(hits.dropLast()) : nil
    }

    /// Whether the newest is the only hit.
    var isSingle: Bool { older == nil }

    /// How many hits (at least 1).
    var count: Int { (older?.count ?? 0) + 1 }

    /// Every hit, ascending.
    var all: [Int64] { (older ?? []) + [newest] }
}
