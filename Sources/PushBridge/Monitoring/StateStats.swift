/// The shared state backend in the stats and the metrics (`state.redis`).
struct StateCounts: Sendable, Equatable {
    var backend: String
    var shown: String
    var connected: Bool
    /// Why it is not connected, `nil` when it is.
    var problem: String?
    /// The last round trip, seconds.
    var roundTrip: Double?
    var operations: [String: StateHealth.Operation]

    init(_ health: StateHealth) {
        backend = health.backend
        shown = health.shown
        connected = health.isConnected
        problem = health.problem
        roundTrip = health.roundTrip
        operations = health.operations
    }

    /// `"state":{"backend":"redis","url":…,"connected":…,"round_trip_ms":…,"error":…,"operations":{…}}`.
    func write(into w: inout JSONWriter) {
        w.key("state"); w.beginObject()
        w.key("backend"); w.string(backend)
        w.key("url"); w.string(shown)
        w.key("connected"); w.bool(connected)
        w.key("round_trip_ms")
        if let roundTrip { w.number(roundTrip * 1000) } else { w.null() }
        if let problem { w.key("error"); w.string(problem) }
        w.key("operations"); w.beginObject()
        for op in operations.keys.sorted() {
            let o = operations[op]!
            w.key(op); w.beginObject()
            w.key("ok"); w.number(o.ok)
            w.key("error"); w.number(o.errors)
            w.endObject()
        }
        w.endObject()
        w.endObject()
    }
}

extension PrometheusWriter {
    /// `pushbridge_state_up`, `pushbridge_state_operations_total{op,result}` and the histogram
    /// `pushbridge_state_operation_duration_seconds{op}`.
    mutating func state(_ state: StateCounts?) {
        guard let state else { return }
        single("pushbridge_state_up", .gauge, "1 while the shared state backend (\(state.backend)) answers, else 0.",
               state.connected ? 1 : 0)
        family("pushbridge_state_operations_total", .counter, "Operations on the shared state backend, by operation and result.")
        for op in state.operations.keys.sorted() {
            let o = state.operations[op]!
            sample("pushbridge_state_operations_total", [("op", op), ("result", "ok")], o.ok)
            sample("pushbridge_state_operations_total", [("op", op), ("result", "error")], o.errors)
        }
        family("pushbridge_state_operation_duration_seconds", .histogram,
               "Round trips of the shared state backend's successful operations (a batch's calls share one).")
        for op in state.operations.keys.sorted() {
            let o = state.operations[op]!
            var cumulative = 0
            for (bound, count) in zip(StateHealth.bounds + [.infinity], o.buckets) {
                cumulative += count
                sample("pushbridge_state_operation_duration_seconds_bucket",
                       [("op", op), ("le", bound.isInfinite ? "+Inf" : PrometheusWriter.format(bound))], cumulative)
            }
            sample("pushbridge_state_operation_duration_seconds_sum", [("op", op)], o.seconds)
            sample("pushbridge_state_operation_duration_seconds_count", [("op", op)], o.ok)
        }
    }
}
