/// The outputs in the stats (`"outputs"`) and in `/metrics`.
extension StatsSnapshot {
    /// `"outputs":{"<name>":{"kind":…,"delivered":…,"failed":…,"retried":…,"skipped":…,
    /// "pending":…,"fell_back":…,"budget_digested":…,"budget_dropped":…,"budget_used":…,
    /// "latency_ms":{"p50":…,"p99":…}}}`, names sorted; nothing when there are none.
    func writeOutputs(into w: inout JSONWriter) {
        guard !outputs.isEmpty else { return }
        w.key("outputs"); w.beginObject()
        for o in outputs.sorted(by: { $0.name < $1.name }) {
            w.key(o.name); w.beginObject()
            w.key("kind"); w.string(o.kind)
            for (key, value) in [("delivered", o.delivered), ("failed", o.failed), ("retried", o.retried),
                                 ("skipped", o.skipped), ("pending", o.pending), ("fell_back", o.fellBack),
                                 ("budget_digested", o.budgetDigested), ("budget_dropped", o.budgetDropped), ("budget_used", o.budgetUsed)] {
                w.key(key); w.number(value)
            }
            w.key("latency_ms"); w.beginObject()
            w.key("p50"); w.number(o.latencyP50ms)
            w.key("p99"); w.number(o.latencyP99ms)
            w.endObject()
            w.endObject()
        }
        w.endObject()
    }

    /// The `"outputs"` object of a stats document.
    package static func parseOutputs(_ value: JSONValue?) -> [OutputStatsSnapshot] {
        guard case .object(let members)? = value else { return [] }
        return members.compactMap { name, v in
            func n(_ key: String) -> Int { v[key]?.numberValue.map { Int($0) } ?? 0 }
            return OutputStatsSnapshot(name: name, kind: v["kind"]?.stringValue ?? "", delivered: n("delivered"),
                                       failed: n("failed"), retried: n("retried"), skipped: n("skipped"), pending: n("pending"),
                                       latencyP50ms: v["latency_ms"]?["p50"]?.numberValue ?? 0,
                                       latencyP99ms: v["latency_ms"]?["p99"]?.numberValue ?? 0,
                                       fellBack: n("fell_back"), budgetDigested: n("budget_digested"), budgetDropped: n("budget_dropped"),
                                       budgetUsed: n("budget_used"))
        }.sorted { $0.name < $1.name }
    }
}

extension PrometheusWriter {
    /// `pushbridge_output_deliveries_total{output,result}`, `pushbridge_output_pending{output}`
    /// and `pushbridge_output_latency_seconds{output,quantile}`.
    mutating func outputs(_ outputs: [OutputStatsSnapshot]) {
        guard !outputs.isEmpty else { return }
        family("pushbridge_output_deliveries_total", .counter,
               "Deliveries to each output by result: delivered (2xx), failed (refused or dropped), retried (attempts that will be repeated), skipped (nothing to send).")
        for o in outputs {
            for (result, value) in [("delivered", o.delivered), ("failed", o.failed), ("retried", o.retried), ("skipped", o.skipped)] {
                sample("pushbridge_output_deliveries_total", [("output", o.name), ("result", result)], value)
            }
        }
        family("pushbridge_output_fell_back_total", .counter,
               "Deliveries of each output also handed to its fallback (not accepted within fallback_after).")
        for o in outputs { sample("pushbridge_output_fell_back_total", [("output", o.name)], o.fellBack) }
        family("pushbridge_output_budget_total", .counter,
               "Alerts each output's daily budget held for a summary (digested) or dropped (dropped).")
        for o in outputs {
            sample("pushbridge_output_budget_total", [("output", o.name), ("result", "digested")], o.budgetDigested)
            sample("pushbridge_output_budget_total", [("output", o.name), ("result", "dropped")], o.budgetDropped)
        }
        family("pushbridge_output_budget_used", .gauge, "Deliveries counted against each output's budget today.")
        for o in outputs { sample("pushbridge_output_budget_used", [("output", o.name)], o.budgetUsed) }
        family("pushbridge_output_pending", .gauge, "Deliveries waiting for each output (in the journal when it is set).")
        for o in outputs { sample("pushbridge_output_pending", [("output", o.name)], o.pending) }
        family("pushbridge_output_latency_seconds", .summary,
               "Added latency of each output: from the hand-off to the service's 2xx, over its last 1024 deliveries.")
        for o in outputs {
            sample("pushbridge_output_latency_seconds", [("output", o.name), ("quantile", "0.5")], o.latencyP50ms / 1000)
            sample("pushbridge_output_latency_seconds", [("output", o.name), ("quantile", "0.99")], o.latencyP99ms / 1000)
        }
    }
}
