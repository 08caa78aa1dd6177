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
///
/// With `tracksChanges` (the journal keeps filter memory) every key whose hits change is
/// noted, so ``takeChanges(_:)`` can hand the journal only what changed since the last call.
final class KeyedWindows: FilterMemoryStore {
    /// Most keys kept at once.
    let capacity: Int
    let filterName: String
    private let tracksChanges: Bool
    private let evictionEvents: EvictionEvents

    private struct Entry {
        var hits: [Duration]   // ascending
        var stamp: UInt64      // order of the last admitted hit
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var queue: [(key: String, stamp: UInt64)] = []   // admission order; stale records skipped
        var head = 0
        var nextStamp: UInt64 = 0
        /// Keys changed since the last `takeChanges` (only with `tracksChanges`).
        var dirty: Set<String> = []
    }

    private let state = Mutex(State())

    init(capacity: Int = FilterConfig.defaultMaxKeys, filterName: String = "", tracksChanges: Bool = false,
         evictionEvents: EvictionEvents = EvictionEvents()) {
        self.capacity = max(1, capacity)
        self.filterName = filterName
        self.tracksChanges = tracksChanges
        self.evictionEvents = evictionEvents
    }

    /// Keys forgotten because ``capacity`` was reached.
    var evictions: Int { evictionEvents.count }

    /// Lets a hit of `key` at `now` through when fewer than `max` earlier hits lie within
    /// `window`, and records it; returns `false` (recording nothing) otherwise.
    func admit(_ key: String, now: Duration, window: Duration, max: Int) -> Bool {
        let capacity = self.capacity
        let tracks = tracksChanges
        var evicted = 0
        let admitted = state.withLock { s in
            Self.pruneFront(&s, now: now, window: window, tracks: tracks)
            var entry = s.entries[key] ?? Entry(hits: [], stamp: 0)
            if let firstLive = entry.hits.firstIndex(where: { now - $0 < window }) {
                entry.hits.removeFirst(firstLive)
            } else {
                entry.hits.removeAll()
            }
            guard entry.hits.count < max else {
                s.entries[key] = entry
                return false
            }
            entry.hits.append(now)
            entry.stamp = s.nextStamp
            s.nextStamp += 1
            s.entries[key] = entry
            s.queue.append((key, entry.stamp))
            if tracks { s.dirty.insert(key) }
            while s.entries.count > capacity, s.head < s.queue.count {
                let oldest = s.queue[s.head]
                s.head += 1
                if s.entries[oldest.key]?.stamp == oldest.stamp {
                    s.entries[oldest.key] = nil
                    evicted += 1
                    if tracks { s.dirty.insert(oldest.key) }
                }
            }
            Self.compact(&s)
            return true
        }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
        return admitted
    }

    /// Number of keys currently remembered.
    var count: Int { state.withLock { $0.entries.count } }

    /// `true` when `key` is remembered.
    func contains(_ key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

    /// The keys changed since the last call: each remembered one with its hits as UNIX
    /// seconds (comma-separated), and `nil` for one that is gone.
    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)] {
        state.withLock { s in
            defer { s.dirty.removeAll() }
            return s.dirty.map { key in
                guard let entry = s.entries[key] else { return (key, nil) }
                let text = entry.hits.map { JSONValue.numberText(clocks.wall(of: $0)) }.joined(separator: ",")
                return (key, text)
            }
        }
    }

    /// Puts back what a previous process remembered (hits given as UNIX seconds), oldest
    /// hit first, within ``capacity``.
    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading) {
        var decoded: [(key: String, hits: [Duration])] = rows.compactMap { row in
            let hits = row.value.split(separator: ",").compactMap { Double($0) }.map { clocks.monotonic(ofWall: $0) }
            return hits.isEmpty ? nil : (row.key, hits.sorted())
        }
        decoded.sort { $0.hits.last! < $1.hits.last! }
        state.withLock { s in
            for row in decoded.suffix(capacity) {
                let stamp = s.nextStamp
                s.nextStamp += 1
                s.entries[row.key] = Entry(hits: row.hits, stamp: stamp)
                s.queue.append((row.key, stamp))
            }
        }
    }

    private static func pruneFront(_ s: inout State, now: Duration, window: Duration, tracks: Bool) {
        while s.head < s.queue.count {
            let record = s.queue[s.head]
            guard let entry = s.entries[record.key], entry.stamp == record.stamp else {
                s.head += 1   // stale: the key was admitted again later, or evicted
                continue
            }
            guard let last = entry.hits.last, now - last >= window else { break }
            s.entries[record.key] = nil
            if tracks { s.dirty.insert(record.key) }
            s.head += 1
        }
    }

    /// Keeps the order queue proportional to the live keys.
    private static func compact(_ s: inout State) {
        if s.head > 1024, s.head * 2 > s.queue.count {
            s.queue.removeFirst(s.head)
            s.head = 0
        }
        if s.queue.count - s.head > 2 * s.entries.count + 1024 {
            s.queue = s.entries.map { ($0.key, $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
            s.head = 0
        }
    }
}
