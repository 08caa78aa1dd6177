import Synchronization

/// The memory of one `changed` filter: the last value recorded for each key (SPEC section 4).
///
/// Bounded like `KeyedWindows`: at most ``capacity`` keys; recording a new key beyond that
/// forgets the key recorded least recently, and counts the eviction.
final class ChangedValues: FilterMemoryStore {
    /// What `observe` decided.
    enum Verdict: Equatable {
        /// The key had no value: `initial` decides.
        case first
        /// The value differs from the one recorded (by more than the deadband).
        case changed
        /// The value equals the one recorded (within the deadband).
        case unchanged
    }

    let capacity: Int
    let filterName: String
    private let tracksChanges: Bool
    private let evictionEvents: EvictionEvents

    private struct Entry {
        var value: String
        var stamp: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var queue: [(key: String, stamp: UInt64)] = []   // recording order; stale records skipped
        var head = 0
        var nextStamp: UInt64 = 0
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

    var evictions: Int { evictionEvents.count }

    /// Compares `value` with the one recorded for `key` and records it.
    ///
    /// Both values are compared as numbers when both read as numbers (`"15.00"` equals
    /// `"15"`), then they differ only when more than `deadband` apart; otherwise as text.
    /// With a deadband, a value within it is not recorded: the reference stays the last
    /// value that differed, so a slow drift is reported once it has moved by more than the
    /// deadband (Node-RED's "compared to last valid output value").
    func observe(_ key: String, value: String, deadband: Double) -> Verdict {
        let verdict: Verdict = state.withLock { s in
            guard let old = s.entries[key] else { return .first }
            return Self.same(old.value, value, deadband: deadband) ? .unchanged : .changed
        }
        if verdict == .unchanged && deadband > 0 { return verdict }
        record(key, value: value)
        return verdict
    }

    /// Records `value` for `key` without a verdict (retained state teaching the filter).
    func record(_ key: String, value: String) {
        let capacity = self.capacity
        let tracks = tracksChanges
        var evicted = 0
        state.withLock { s in
            let stamp = s.nextStamp
            s.nextStamp += 1
            s.entries[key] = Entry(value: value, stamp: stamp)
            s.queue.append((key, stamp))
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
            if s.head > 1024, s.head * 2 > s.queue.count {
                s.queue.removeFirst(s.head)
                s.head = 0
            }
            if s.queue.count - s.head > 2 * s.entries.count + 1024 {
                s.queue = s.entries.map { ($0.key, $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
                s.head = 0
            }
        }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
    }

    /// The value recorded for `key`.
    func value(for key: String) -> String? { state.withLock { $0.entries[key]?.value } }

    var count: Int { state.withLock { $0.entries.count } }

    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)] {
        state.withLock { s in
            defer { s.dirty.removeAll() }
            return s.dirty.map { ($0, s.entries[$0]?.value) }
        }
    }

    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading) {
        state.withLock { s in
            for row in rows.suffix(capacity) {
                let stamp = s.nextStamp
                s.nextStamp += 1
                s.entries[row.key] = Entry(value: row.value, stamp: stamp)
                s.queue.append((row.key, stamp))
            }
        }
    }

    /// Equal as numbers within `deadband` when both read as numbers, else as text.
    static func same(_ a: String, _ b: String, deadband: Double) -> Bool {
        if a == b { return true }
        guard let x = number(a), let y = number(b) else { return false }
        return abs(x - y) <= deadband
    }

    private static func number(_ text: String) -> Double? {
        switch NumberText.parse(text) {
        case .int(let i)?: return Double(i)
        case .double(let d)?: return d
        case .bigInt(let digits)?: return Double(digits)
        default: return nil
        }
    }
}
