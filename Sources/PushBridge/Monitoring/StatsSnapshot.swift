/// One topic's counters and when a message last arrived on it.
package struct TopicStats: Sendable, Equatable {
    /// The topic's counters (its `inFlight` included).
    package var counters: Counters
    /// Last arrival, UNIX seconds (`nil` when unknown).
    package var lastSeen: Double?

    /// A topic entry from its parts.
    package init(counters: Counters, lastSeen: Double?) {
        self.counters = counters
        self.lastSeen = lastSeen
    }
}

/// A consistent copy of `Stats` at one moment: what the stats topic publishes (docs/formats.md, "Stats snapshot").
///
/// The JSON form (`json()`) carries everything but the histograms: `latency_ms` holds
/// p50 and p99 of the end-to-end latency since start, in milliseconds (0 before any
/// sample). In `topics` and `routes` zero counters are left out, and a topic entry
/// carries `in_flight` when it is not 0, so the per-topic invariant can be checked.
package struct StatsSnapshot: Sendable, Equatable {
    /// The bridge version.
    package var version: String
    /// Process start, UNIX seconds.
    package var startedAt: Double
    /// Seconds since start when the snapshot was taken.
    package var uptime: Double
    /// Whether the broker connection was up.
    package var connected: Bool
    /// Every counter over all topics (`inFlight` included).
    package var totals: Counters
    /// Per source topic, with `Stats.otherTopic` for topics beyond `max_topics`.
    package var topics: [String: TopicStats]
    /// Per route name (`inFlight` always 0: routes count at finish).
    package var routes: [String: Counters]
    /// Filter (or extension) name to the number of messages it suppressed.
    package var filters: [String: Int]
    /// Filter name to the keys its memory forgot because `max_keys` was reached (set by the
    /// bridge from its filter memory; written as `evicted` beside `suppressed`).
    package var filterEvictions: [String: Int] = [:]
    /// Per condition route: its conditions' counters (`routes.<r>.conditions`).
    package var conditions: [String: ConditionCounts] = [:]
    /// Per digest route: alerts held and summaries sent (`routes.<r>.digested`, `.digests`).
    var digests: [String: DigestCounts] = [:]
    /// What arrived on the ack topic and changed nothing (set by the bridge when it has
    /// condition routes); written as the top-level `conditions` object when set.
    var acknowledgements: AcknowledgementCounts?
    /// p50 of the end-to-end latency since start, in milliseconds.
    package var latencyP50Milliseconds: Double
    /// p99 of the end-to-end latency since start, in milliseconds.
    package var latencyP99Milliseconds: Double
    /// End-to-end latency histogram (not in the JSON; empty after `parse`).
    package var latency: Histogram
    /// Extension-stage duration histogram (not in the JSON; empty after `parse`).
    package var extensionDuration: Histogram
    /// Delivery-layer events (`qos0_dropped`, `publish_failed`, `publish_refused`,
    /// `redeliveries_skipped`, `replayed`, `journal_overflows`, `journal_errors`), set by
    /// the bridge (`StatsSources`); written as the `delivery` object when set.
    var delivery: DeliveryCounts?
    /// Each output's counters (`outputs:`); written as the `outputs` object when not empty.
    package var outputs: [OutputStatsSnapshot] = []
    /// The attachment store and cache (set by the bridge when routes have attachments);
    /// written as the `attachments` object when set.
    var attachments: AttachmentCounts?
    /// The people's presence and the held alerts (set by the bridge when `people:` is
    /// configured); written as the `people` object and the routes' `held` counts when set.
    var people: PeopleCounts?
    /// The shared state backend (`state.redis`), written as the `state` object when set.
    var state: StateCounts?

    /// Messages received and not yet finished (the totals' `in_flight`).
    package var inFlight: Int { totals.inFlight }

    /// When the snapshot was taken, UNIX seconds.
    package var takenAt: Double { startedAt + uptime }

    /// A snapshot from its parts; the latency percentiles come from `latency`.
    package init(version: String, startedAt: Double, uptime: Double, connected: Bool, totals: Counters,
                topics: [String: TopicStats] = [:], routes: [String: Counters] = [:],
                filters: [String: Int] = [:], latency: Histogram = .latency(),
                extensionDuration: Histogram = .extensionDuration()) {
        self.version = version
        self.startedAt = startedAt
        self.uptime = uptime
        self.connected = connected
        self.totals = totals
        self.topics = topics
        self.routes = routes
        self.filters = filters
        self.latency = latency
        self.extensionDuration = extensionDuration
        self.latencyP50Milliseconds = (latency.quantile(0.5) ?? 0) * 1000
        self.latencyP99Milliseconds = (latency.quantile(0.99) ?? 0) * 1000
    }

    /// The stats-topic JSON, keys in the order docs/formats.md shows, maps sorted by name, fractions to 3 decimals.
    package func json() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("version"); w.string(version)
        w.key("started_at"); w.string(Timestamp.iso8601(startedAt))
        w.key("uptime_s"); w.number(uptime)
        w.key("connected"); w.bool(connected)
        w.key("in_flight"); w.number(totals.inFlight)
        w.key("totals"); Self.write(totals, into: &w, all: true)
        w.key("topics"); w.beginObject()
        for name in topics.keys.sorted() {
            let t = topics[name]!
            w.key(name)
            Self.write(t.counters, into: &w, all: false) { w in
                if let seen = t.lastSeen { w.key("last_seen"); w.string(Timestamp.iso8601(seen)) }
            }
        }
        w.endObject()
        w.key("routes"); w.beginObject()
        let held = people?.held ?? [:]
        for name in Set(routes.keys).union(conditions.keys).union(digests.keys).union(held.keys).sorted() {
            w.key(name)
            Self.write(routes[name] ?? Counters(), into: &w, all: false) { w in
                if let g = digests[name] {
                    w.key("digested"); w.number(g.held)
                    w.key("digests"); w.number(g.sent)
                }
                if let h = held[name] { w.key("held"); w.number(h.held); w.key("held_delivered"); w.number(h.released) }
                guard let c = conditions[name] else { return }
                w.key("conditions"); w.beginObject()
                w.key("active"); w.number(c.active)
                for (state, count) in c.transitions { w.key(state); w.number(count) }
                if c.evicted > 0 { w.key("evicted"); w.number(c.evicted) }
                w.endObject()
            }
        }
        w.endObject()
        w.key("filters"); w.beginObject()
        for name in Set(filters.keys).union(filterEvictions.keys).sorted() {
            w.key(name); w.beginObject(); w.key("suppressed"); w.number(filters[name] ?? 0)
            if let evicted = filterEvictions[name] { w.key("evicted"); w.number(evicted) }
            w.endObject()
        }
        w.endObject()
        if let a = acknowledgements {
            w.key("conditions"); w.beginObject()
            w.key("ack_unknown"); w.number(a.unknown)
            w.key("ack_rejected"); w.number(a.rejected)
            w.endObject()
        }
        w.key("latency_ms"); w.beginObject()
        w.key("p50"); w.number(latencyP50Milliseconds)
        w.key("p99"); w.number(latencyP99Milliseconds)
        w.endObject()
        if let delivery {
            w.key("delivery"); w.beginObject()
            for event in DeliveryEvent.written { w.key(event.rawValue); w.number(delivery[event]) }
            w.endObject()
        }
        writeOutputs(into: &w)
        writePeople(into: &w)
        state?.write(into: &w)
        if let a = attachments {
            w.key("attachments"); w.beginObject()
            w.key("store_bytes"); w.number(a.storeBytes)
            w.key("store_files"); w.number(a.storeFiles)
            w.key("evicted"); w.number(a.evicted)
            w.key("expired"); w.number(a.expired)
            w.key("cache_bytes"); w.number(a.cacheBytes)
            w.key("waiting"); w.number(a.waiting)
            w.endObject()
        }
        w.endObject()
        return w.bytes
    }

    /// Writes one counter set; `all` writes zeros and `rejected_by_reason` even when empty.
    private static func write(_ c: Counters, into w: inout JSONWriter, all: Bool,
                              extra: (inout JSONWriter) -> Void = { _ in }) {
        w.beginObject()
        for counter in StatsCounter.written {
            let v = c[counter]
            if all || v != 0 { w.key(counter.rawValue); w.number(v) }
        }
        if !all && c.inFlight != 0 { w.key("in_flight"); w.number(c.inFlight) }
        if all || !c.rejectedByReason.isEmpty {
            w.key("rejected_by_reason"); w.beginObject()
            for reason in c.rejectedByReason.keys.sorted() { w.key(reason); w.number(c.rejectedByReason[reason]!) }
            w.endObject()
        }
        if !c.attachmentFailures.isEmpty {
            w.key("attachment_failures"); w.beginObject()
            for reason in c.attachmentFailures.keys.sorted() { w.key(reason); w.number(c.attachmentFailures[reason]!) }
            w.endObject()
        }
        extra(&w)
        w.endObject()
    }
}
