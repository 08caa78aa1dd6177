import Foundation
import Synchronization

/// The memory of the remembering filters (`dedupe`, `rate_limit`, `changed`), kept apart
/// from the pipeline so that it outlives a reload and, with the journal, a restart.
///
/// One store per filter, found by the filter's ``FilterConfig/memoryIdentity`` (its name —
/// for an unnamed filter its position — and its definition): a reload that leaves a filter
/// unchanged hands the new pipeline the same store; a changed or removed filter starts
/// afresh. With `persistent`, each store notes what changed so that ``takeChanges(_:)`` can
/// give the journal a batch of rows (so that the memory survives a restart when `journal` is set).
package final class FilterMemory: Sendable {
    /// Whether stores note their changes for the journal.
    let persistent: Bool
    private let logger: BridgeLogger?

    private struct State {
        var stores: [String: any FilterMemoryStore] = [:]
        /// Rows read from the journal for filters that have no store yet.
        var pending: [String: [(key: String, value: String)]] = [:]
        /// Identities whose rows must be deleted (the filter is gone or changed).
        var dropped: Set<String> = []
        var restoredAt: ClockReading?
    }

    private let state = Mutex(State())

    /// Memory for one process; `persistent` when the journal keeps it.
    package init(persistent: Bool = false, logger: BridgeLogger? = nil) {
        self.persistent = persistent
        self.logger = logger
    }

    /// The hit memory of a `dedupe` or `rate_limit` filter.
    func windows(for filter: FilterConfig) -> KeyedWindows {
        store(for: filter) { events in
            KeyedWindows(capacity: filter.maxKeys, filterName: filter.name, tracksChanges: persistent,
                         evictionEvents: events)
        }
    }

    /// The value memory of a `changed` filter.
    func changedValues(for filter: FilterConfig) -> ChangedValues {
        store(for: filter) { events in
            ChangedValues(capacity: filter.maxKeys, filterName: filter.name, tracksChanges: persistent,
                          evictionEvents: events)
        }
    }

    private func store<S: FilterMemoryStore>(for filter: FilterConfig, make: (EvictionEvents) -> S) -> S {
        let identity = filter.memoryIdentity
        let logger = self.logger
        return state.withLock { s in
            if let existing = s.stores[identity] as? S { return existing }
            let events = EvictionEvents { name, capacity in
                logger?.warning("filter '\(name)' remembers at most \(capacity) keys and has begun to forget the oldest; set max_keys: in the filter to keep more (each key costs about 120 bytes plus its text)")
            }
            let store = make(events)
            if let rows = s.pending.removeValue(forKey: identity), let clocks = s.restoredAt {
                store.restore(rows, clocks)
                // Put back now on a thread of its own; a decision that comes first does it itself.
                DispatchQueue.global(qos: .userInitiated).async { store.warm() }
            }
            s.stores[identity] = store
            s.dropped.remove(identity)
            return store
        }
    }

    /// Forgets every store whose filter is not in `filters` (after a reload built the new
    /// pipeline's chain); their journal rows are deleted with the next batch.
    package func keep(only filters: [FilterConfig]) {
        let live = Set(filters.filter(\.hasMemory).map(\.memoryIdentity))
        state.withLock { s in
            for identity in s.stores.keys where !live.contains(identity) {
                s.stores[identity] = nil
                s.dropped.insert(identity)
            }
            for identity in s.pending.keys where !live.contains(identity) {
                s.pending[identity] = nil
                s.dropped.insert(identity)
            }
        }
    }

    /// Puts back rows a previous process stored; call before the first pipeline is built.
    func restore(_ rows: [FilterMemoryRow], clocks: ClockReading) {
        state.withLock { s in
            s.restoredAt = clocks
            for row in rows { s.pending[row.filter, default: []].append((row.key, row.value)) }
        }
    }

    /// What changed since the last call, for the journal: rows to write (a `nil` value
    /// deletes the row) and filters whose rows are all to be deleted.
    func takeChanges(_ clocks: ClockReading) -> FilterMemoryChanges {
        let (stores, dropped) = state.withLock { s in
            defer { s.dropped.removeAll() }
            return (s.stores, s.dropped)
        }
        var rows: [FilterMemoryChanges.Change] = []
        for (identity, store) in stores {
            for change in store.takeChanges(clocks) {
                rows.append(.init(filter: identity, key: change.key, value: change.value))
            }
        }
        return FilterMemoryChanges(rows: rows, droppedFilters: Array(dropped))
    }

    /// Evictions so far, by filter name.
    package var evictions: [String: Int] {
        state.withLock { s in
            var out: [String: Int] = [:]
            for store in s.stores.values { out[store.filterName, default: 0] += store.evictions }
            return out
        }
    }
}

/// One remembered key of one filter, as the journal stores it.
struct FilterMemoryRow: Sendable, Equatable {
    /// The filter's ``FilterConfig/memoryIdentity``.
    package var filter: String
    package var key: String
    /// `changed`: the value; `dedupe`/`rate_limit`: the hits as UNIX seconds, comma-separated.
    package var value: String
}

/// A batch of filter-memory changes for the journal.
struct FilterMemoryChanges: Sendable {
    /// One key's new state; `value == nil` deletes it.
    package struct Change: Sendable, Equatable {
        package var filter: String
        package var key: String
        package var value: String?
    }

    package var rows: [Change]
    /// Filters whose rows are all deleted.
    var droppedFilters: [String]

    /// `true` when there is nothing to write.
    package var isEmpty: Bool { rows.isEmpty && droppedFilters.isEmpty }
}

/// The monotonic and wall clocks read at one moment, to turn hit times (monotonic) into
/// UNIX seconds for the journal and back.
struct ClockReading: Sendable {
    package var monotonic: Duration
    package var wall: Double

    init(monotonic: Duration, wall: Double) {
        self.monotonic = monotonic
        self.wall = wall
    }

    /// Reads `clock` now.
    init(_ clock: StageClock) {
        self.init(monotonic: clock.monotonic(), wall: clock.wall())
    }

    /// UNIX seconds of the monotonic instant `t`.
    func wall(of t: Duration) -> Double {
        let delta = monotonic - t
        return wall - delta.seconds
    }

    /// The monotonic instant of UNIX seconds `seconds` (in the past: before `monotonic`).
    func monotonic(ofWall seconds: Double) -> Duration {
        monotonic - .milliseconds(Int64(((wall - seconds) * 1000).rounded()))
    }
}

/// A filter's memory store, as `FilterMemory` and the journal see it.
protocol FilterMemoryStore: AnyObject, Sendable {
    var filterName: String { get }
    var evictions: Int { get }
    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)]
    /// Keeps `rows` to put back at the first use of the store (a million keys do not delay the start).
    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading)
    /// Puts back the rows of `restore` now, if that is still to do.
    func warm()
}

/// Counts a store's evictions and reports the first one: each filter's first eviction is
/// logged, once.
final class EvictionEvents: Sendable {
    private let total = Atomic<Int>(0)
    private let onFirst: (@Sendable (String, Int) -> Void)?

    init(onFirst: (@Sendable (_ filter: String, _ capacity: Int) -> Void)? = nil) {
        self.onFirst = onFirst
    }

    var count: Int { total.load(ordering: .relaxed) }

    func record(_ n: Int, filter: String, capacity: Int) {
        let before = total.add(n, ordering: .relaxed).oldValue
        if before == 0 { onFirst?(filter, capacity) }
    }
}
