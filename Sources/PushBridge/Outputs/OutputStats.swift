import Synchronization

/// One output's counters: written by its worker and its
/// hand-off, read by the stats, `/metrics` and the dashboard.
final class OutputStats: Sendable {
    package let name: String
    package let kind: String
    let delivered = Atomic<Int>(0)
    /// Rejected for good (dead-lettered), or dropped because the memory queue was full.
    let failed = Atomic<Int>(0)
    let retried = Atomic<Int>(0)
    let skipped = Atomic<Int>(0)
    let pending = Atomic<Int>(0)
    /// Deliveries also handed to the fallback output (not accepted within `fallback_after`).
    let fellBack = Atomic<Int>(0)
    /// Alerts held by the budget for a summary.
    let budgetDigested = Atomic<Int>(0)
    /// Alerts not delivered because the day's budget was used up.
    let budgetDropped = Atomic<Int>(0)
    /// Deliveries counted against the budget today.
    let budgetUsed = Atomic<Int>(0)
    /// Added latency of the last deliveries, seconds (hand-off to 2xx).
    private let latencies = Mutex<LatencyRing>(LatencyRing())

    init(name: String, kind: String) {
        self.name = name
        self.kind = kind
    }

    func recordLatency(_ seconds: Double) { latencies.withLock { $0.add(seconds) } }

    /// The counters now.
    package func snapshot() -> OutputStatsSnapshot {
        let (p50, p99) = latencies.withLock { ($0.quantile(0.5), $0.quantile(0.99)) }
        return OutputStatsSnapshot(name: name, kind: kind, delivered: delivered.load(ordering: .relaxed),
                                   failed: failed.load(ordering: .relaxed), retried: retried.load(ordering: .relaxed),
                                   skipped: skipped.load(ordering: .relaxed), pending: pending.load(ordering: .relaxed),
                                   latencyP50ms: p50 * 1000, latencyP99ms: p99 * 1000,
                                   fellBack: fellBack.load(ordering: .relaxed), budgetDigested: budgetDigested.load(ordering: .relaxed),
                                   budgetDropped: budgetDropped.load(ordering: .relaxed), budgetUsed: budgetUsed.load(ordering: .relaxed))
    }
}

/// One output's counters at one moment.
package struct OutputStatsSnapshot: Sendable, Equatable {
    package var name: String
    package var kind: String
    package var delivered: Int
    var failed: Int
    var retried: Int
    var skipped: Int
    package var pending: Int
    var latencyP50ms: Double
    var latencyP99ms: Double
    /// Deliveries also handed to the fallback output.
    var fellBack = 0
    /// Alerts held by the budget for a summary.
    var budgetDigested = 0
    /// Alerts dropped because the day's budget was used up.
    var budgetDropped = 0
    /// Deliveries counted against the budget today.
    var budgetUsed = 0
}

/// The last 1024 latencies.
struct LatencyRing {
    private var values: [Double] = []
    private var next = 0
    static let capacity = 1024

    mutating func add(_ v: Double) {
        if values.count < Self.capacity { values.append(v) } else { values[next] = v }
        next = (next + 1) % Self.capacity
    }

    func quantile(_ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }
}
