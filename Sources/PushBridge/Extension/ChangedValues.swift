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
        let (verdict, evicted) = withTable { t -> (Verdict, Int) in
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
        let evicted = withTable { $0.set(key, value) }
        if evicted > 0 { evictionEvents.record(evicted, filter: filterName, capacity: capacity) }
    }

    func takeChanges(_ clocks: ClockReading) -> [(key: String, value: String?)] {
        withTable { $0.takeChanges() }
    }

    func restore(_ rows: [(key: String, value: String)], _ clocks: ClockReading) {
        let capacity = self.capacity
        table.withLock { $0.restoreLater { Array(rows.suffix(capacity)) } }
    }

    /// Puts back the rows of `restore` now if that is still to do.
    func warm() { withTable { _ in () } }

    /// The table, with restored rows put back first (`BoundedKeys.restoreLater`).
    private func withTable<R: Sendable>(_ body: (inout BoundedKeys<String>) -> R) -> R {
        table.withLock { t in
            t.settle()
            return body(&t)
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
