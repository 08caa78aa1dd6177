import Synchronization

/// The memory of one `changed` filter: the last value recorded for each key.
///
/// Bounded (`BoundedKeys`): at most ``capacity`` keys; recording a new key beyond that
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
    private let evictionEvents: EvictionEvents
    private let table: Mutex<BoundedKeys<String>>

    init(capacity: Int = FilterConfig.defaultMaxKeys, filterName: String = "", tracksChanges: Bool = false,
         evictionEvents: EvictionEvents = EvictionEvents()) {
        self.capacity = max(1, capacity)
        self.filterName = filterName
        self.evictionEvents = evictionEvents
        table = Mutex(BoundedKeys(capacity: capacity, tracksChanges: tracksChanges))
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
        let (verdict, evicted) = table.withLock { t -> (Verdict, Int) in
            let verdict: Verdict
            if let old = t[key] {
                verdict = Self.same(old, value, deadband: deadband) ? .unchanged : .changed
            } else {
                verdict = .first
            }
            if verdict == .unchanged && deadband > 0 { return (verdict, 0) }
            return (verdict, t.set(key, value))
        }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
        return verdict
    }

    /// Records `value` for `key` without a verdict (retained state teaching the filter).
    func record(_ key: String, value: String) {
        let evicted = table.withLock { $0.set(key, value) }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
    }

    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)] {
        table.withLock { $0.takeChanges() }
    }

    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading) {
        table.withLock { t in
            for row in rows.suffix(capacity) { _ = t.set(row.key, row.value) }
            _ = t.takeChanges()  // they are in the journal already
        }
    }

    /// Equal as numbers within `deadband` when both read as numbers, else as text.
    static func same(_ a: String, _ b: String, deadband: Double) -> Bool {
        if a == b { return true }
        guard let x = JSONValue(numberText: a)?.arithmeticValue, let y = JSONValue(numberText: b)?.arithmeticValue
        else { return false }
        return abs(x - y) <= deadband
    }
}
