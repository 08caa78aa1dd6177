import Synchronization

/// How the shared state backend (`state.redis`) is doing: whether it answers, why not, its
/// round trip, and each operation's count by result with its durations, for the stats, the
/// metrics and `/readyz`. One per bridge, shared by everything that talks to the backend.
///
/// The first failure after a success is reported once (``failed(_:why:)`` returns `true` for
/// it, and `report` hears of it); the first success after a failure too (``succeeded(_:seconds:)``).
final class StateHealth: Sendable {
    /// The backend's name in the stats (`redis`).
    let backend: String
    /// Where it is, without a password (the stats and the log show it).
    let shown: String
    /// Upper bounds of the duration buckets, seconds (the last bucket is `+Inf`).
    static let bounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// One operation's figures.
    struct Operation: Sendable, Equatable {
        var ok = 0
        var errors = 0
        /// Per-bucket counts of the successful durations (not cumulative), `bounds.count + 1`.
        var buckets = [Int](repeating: 0, count: StateHealth.bounds.count + 1)
        var seconds = 0.0
    }

    private struct State {
        var connected = false
        /// Why it is not connected (the last failure), `nil` when it is or before the first try.
        var reason: String? = "not connected yet"
        var roundTrip: Double?
        var operations: [String: Operation] = [:]
    }

    private let state = Mutex(State())
    /// Told of each change: `false` and why when the backend stops answering, `true` when it answers again.
    private let report: (@Sendable (_ up: Bool, _ why: String) -> Void)?

    init(backend: String, shown: String, report: (@Sendable (_ up: Bool, _ why: String) -> Void)? = nil) {
        self.backend = backend
        self.shown = shown
        self.report = report
    }

    /// Records `count` successful operations `op` that took `seconds` each (the calls of one
    /// round trip); `true` when they end an outage (log that the backend is back).
    @discardableResult
    func succeeded(_ op: String, seconds: Double, count: Int = 1) -> Bool {
        let back = state.withLock { s in
            let wasDown = !s.connected && s.reason != "not connected yet"
            s.connected = true
            s.reason = nil
            s.roundTrip = seconds
            var o = s.operations[op] ?? Operation()
            o.ok += count
            o.seconds += seconds * Double(count)
            o.buckets[Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count] += count
            s.operations[op] = o
            return wasDown
        }
        if back { report?(true, "") }
        return back
    }

    /// Records a failed operation `op` (the backend did not answer); `true` when it begins an
    /// outage (log it once).
    @discardableResult
    func failed(_ op: String, why: String) -> Bool {
        let down = state.withLock { s in
            let wasUp = s.connected || s.reason == "not connected yet"
            s.connected = false
            s.reason = why
            s.operations[op, default: Operation()].errors += 1
            return wasUp
        }
        if down { report?(false, why) }
        return down
    }

    /// `true` while the last operation succeeded.
    var isConnected: Bool { state.withLock { $0.connected } }

    /// Why the backend is not usable now (for `/readyz`), `nil` when it is.
    var problem: String? {
        state.withLock { s in s.connected ? nil : "state backend \(backend) at \(shown) is unreachable: \(s.reason ?? "no answer")" }
    }

    /// The last successful round trip, seconds.
    var roundTrip: Double? { state.withLock { $0.roundTrip } }

    /// Every operation's figures, by name.
    var operations: [String: Operation] { state.withLock { $0.operations } }
}
