/// Renders `snapshot` in the Prometheus text exposition format 0.0.4.
///
/// Families: `pushbridge_build_info{version}`, `pushbridge_uptime_seconds`,
/// `pushbridge_broker_connected`, `pushbridge_in_flight`, `pushbridge_received_total`,
/// `pushbridge_messages_total{route,outcome}` (messages without a route, e.g. `unrouted`,
/// under `route=""`), `pushbridge_rejected_total{reason}`,
/// `pushbridge_filter_suppressed_total{filter}`, `pushbridge_modified_total`,
/// `pushbridge_timeouts_total`, `pushbridge_extension_failures_total`,
/// `pushbridge_loop_dropped_total`, `pushbridge_partition_skipped_total`, the `pushbridge_extension_duration_seconds` histogram
/// and the `pushbridge_end_to_end_latency_seconds` summary (quantiles since start).
/// `perTopic` adds `pushbridge_topic_messages_total{topic,outcome}` (one series per
/// tracked topic and outcome: mind the cardinality).
func prometheusText(_ snapshot: StatsSnapshot, perTopic: Bool = false) -> String {
    var out = PrometheusWriter()
    let s = snapshot
    out.family("pushbridge_build_info", .gauge, "Build information; the value is always 1.")
    out.sample("pushbridge_build_info", [("version", s.version)], 1)
    out.single("pushbridge_uptime_seconds", .gauge, "Seconds since the bridge started.", s.uptime)
    out.single("pushbridge_broker_connected", .gauge, "1 while connected to the MQTT broker, else 0.", s.connected ? 1 : 0)
    out.single("pushbridge_in_flight", .gauge, "Messages received and not yet finished.", s.inFlight)
    out.single("pushbridge_received_total", .counter, "Messages received from the broker.", s.totals.received)

    out.family("pushbridge_messages_total", .counter, "Finished messages by route and outcome.")
    for route in s.routes.keys.sorted() {
        for outcome in Outcome.allCases where outcome != .unrouted {
            out.sample("pushbridge_messages_total", [("route", route), ("outcome", outcome.rawValue)],
                       s.routes[route]![outcome])
        }
    }
    for outcome in Outcome.allCases {               // what no route accounts for
        let routed = s.routes.values.reduce(0) { $0 + $1[outcome] }
        let rest = s.totals[outcome] - routed
        if outcome == .unrouted || rest > 0 {
            out.sample("pushbridge_messages_total", [("route", ""), ("outcome", outcome.rawValue)], rest)
        }
    }

    out.family("pushbridge_rejected_total", .counter, "Rejected messages by APNs reason.")
    let reasons = Set(RejectReason.allCases.map(\.rawValue)).union(s.totals.rejectedByReason.keys).sorted()
    for reason in reasons {
        out.sample("pushbridge_rejected_total", [("reason", reason)], s.totals.rejectedByReason[reason] ?? 0)
    }
    let attachmentRoutes = s.routes.keys.sorted().filter { !s.routes[$0]!.attachmentFailures.isEmpty }
    if s.attachments != nil || !attachmentRoutes.isEmpty {
        out.family("pushbridge_attachment_failures_total", .counter,
                   "Attachments not attached, by route and reason (UnsupportedType, Empty, TooLarge, FetchFailed).")
        for route in attachmentRoutes {
            let failures = s.routes[route]!.attachmentFailures
            for reason in failures.keys.sorted() {
                out.sample("pushbridge_attachment_failures_total", [("route", route), ("reason", reason)], failures[reason]!)
            }
        }
    }
    if let a = s.attachments {
        out.single("pushbridge_attachment_store_bytes", .gauge, "Bytes in the attachment store.", a.storeBytes)
        out.single("pushbridge_attachment_store_files", .gauge, "Files in the attachment store.", a.storeFiles)
        out.single("pushbridge_attachment_evictions_total", .counter,
                   "Stored attachments evicted (oldest first) to stay under attachments.total_bytes.", a.evicted)
        out.single("pushbridge_attachment_expired_total", .counter, "Stored attachments deleted after attachments.keep.", a.expired)
        out.single("pushbridge_attachment_cache_bytes", .gauge, "Bytes of the from_topic topics' newest messages held.", a.cacheBytes)
        out.single("pushbridge_attachment_waiting", .gauge, "Alerts waiting for their attachments now.", a.waiting)
    }
    out.family("pushbridge_filter_suppressed_total", .counter, "Messages suppressed, by filter or extension.")
    for filter in s.filters.keys.sorted() {
        out.sample("pushbridge_filter_suppressed_total", [("filter", filter)], s.filters[filter]!)
    }
    out.family("pushbridge_filter_evictions_total", .counter,
               "Keys a dedupe, rate_limit or changed filter forgot because its max_keys was reached.")
    for filter in s.filterEvictions.keys.sorted() {
        out.sample("pushbridge_filter_evictions_total", [("filter", filter)], s.filterEvictions[filter]!)
    }
    out.family("pushbridge_condition_transitions_total", .counter,
               "Condition transitions per route: raised, repeated, escalated, acknowledged, cleared, superseded.")
    for route in s.conditions.keys.sorted() {
        for (state, count) in s.conditions[route]!.transitions {
            out.sample("pushbridge_condition_transitions_total", [("route", route), ("state", state)], count)
        }
    }
    out.family("pushbridge_conditions_active", .gauge, "Active (raised, not cleared) conditions per route.")
    for route in s.conditions.keys.sorted() {
        out.sample("pushbridge_conditions_active", [("route", route)], s.conditions[route]!.active)
    }
    out.family("pushbridge_digest_total", .counter,
               "Digest routes' alerts held for a summary (kind held) and summaries sent (kind sent), per route.")
    for route in s.digests.keys.sorted() {
        out.sample("pushbridge_digest_total", [("route", route), ("kind", "held")], s.digests[route]!.held)
        out.sample("pushbridge_digest_total", [("route", route), ("kind", "sent")], s.digests[route]!.sent)
    }
    if let a = s.acknowledgements {
        out.single("pushbridge_ack_unknown_total", .counter,
                   "Acknowledgements on the ack topic of no active condition (cleared, never raised).", a.unknown)
        out.single("pushbridge_ack_rejected_total", .counter,
                   "Messages on the ack topic that are not acknowledgements (not JSON, no alert_id nor route and key, a bad snooze).",
                   a.rejected)
    }
    out.single("pushbridge_modified_total", .counter, "Messages whose content the extension stage changed.", s.totals.modified)
    out.single("pushbridge_timeouts_total", .counter, "Extension-stage runs that ran out of time.", s.totals.timeout)
    out.single("pushbridge_extension_failures_total", .counter, "Extension-stage runs that failed.", s.totals.extensionFailed)
    out.single("pushbridge_loop_dropped_total", .counter, "Messages dropped because they carried the bridge's own hop.", s.totals.loopDropped)
    out.single("pushbridge_partition_skipped_total", .counter,
               "Messages on topics another partition handles, dropped before the pipeline (not received).", s.totals.partitionSkipped)
    if let delivery = s.delivery {
        out.family("pushbridge_delivery_events_total", .counter,
                   "Delivery-layer events: QoS 0 drops under backpressure, failed or refused publishes, journal replays.")
        for event in DeliveryEvent.written {
            out.sample("pushbridge_delivery_events_total", [("event", event.rawValue)], delivery[event])
        }
    }

    out.outputs(s.outputs)
    out.people(s.people)
    out.state(s.state)

    out.histogram("pushbridge_extension_duration_seconds", "Time spent in the extension stage.",
                  s.extensionDuration)
    out.family("pushbridge_end_to_end_latency_seconds", .summary,
               "From arrival to the display publish's acknowledgement; quantiles since start.")
    for q in [0.5, 0.9, 0.99] {
        out.sample("pushbridge_end_to_end_latency_seconds", [("quantile", PrometheusWriter.format(q))],
                   s.latency.quantile(q) ?? .nan)
    }
    out.sample("pushbridge_end_to_end_latency_seconds_sum", [], s.latency.sum)
    out.sample("pushbridge_end_to_end_latency_seconds_count", [], s.latency.count)

    if perTopic {
        out.family("pushbridge_topic_messages_total", .counter, "Finished messages by source topic and outcome.")
        for topic in s.topics.keys.sorted() {
            for outcome in Outcome.allCases {
                out.sample("pushbridge_topic_messages_total", [("topic", topic), ("outcome", outcome.rawValue)],
                           s.topics[topic]!.counters[outcome])
            }
        }
    }
    return out.text
}

/// Accumulates exposition-format lines.
struct PrometheusWriter {
    enum Kind: String { case counter, gauge, histogram, summary }

    private(set) var text = ""

    /// The `# HELP` and `# TYPE` lines of a family.
    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// A family of one unlabelled sample.
    mutating func single(_ name: String, _ kind: Kind, _ help: String, _ value: Int) {
        family(name, kind, help)
        sample(name, [], value)
    }

    mutating func single(_ name: String, _ kind: Kind, _ help: String, _ value: Double) {
        family(name, kind, help)
        sample(name, [], value)
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        line(name, labels, String(value))
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        line(name, labels, Self.format(value))
    }

    /// A whole histogram family: cumulative `le` buckets ending in `+Inf`, `_sum`, `_count`.
    mutating func histogram(_ name: String, _ help: String, _ h: Histogram) {
        family(name, .histogram, help)
        let cumulative = h.cumulativeCounts
        for (i, bound) in h.bounds.enumerated() {
            sample(name + "_bucket", [("le", Self.format(bound))], cumulative[i])
        }
        sample(name + "_bucket", [("le", "+Inf")], cumulative.last ?? 0)
        sample(name + "_sum", [], h.sum)
        sample(name + "_count", [], h.count)
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + value + "\n"
    }

    /// Label values escape `\`, `"` and newline.
    static func escapeLabel(_ s: String) -> String { escape(s, quote: true) }

    /// HELP text escapes `\` and newline.
    static func escapeHelp(_ s: String) -> String { escape(s, quote: false) }

    private static func escape(_ s: String, quote: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A float as Go's `strconv.ParseFloat` reads it: `+Inf`, `-Inf`, `NaN`, integers without `.0`.
    static func format(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "+Inf" : "-Inf" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }
}
