import Foundation
import Synchronization

/// Live counters for the whole bridge: per topic, per route, per filter and in total.
///
/// Every update is one short critical section under a single `Mutex`, so a snapshot is
/// an atomic cut: the invariant `received == delivered + suppressed + not_displayed +
/// rejected + expired + unrouted + in_flight` holds in every snapshot for every topic,
/// for the totals, and for every route (whose `in_flight` is always 0, see below).
/// For a topic already seen an update is O(1) and allocates nothing (the first
/// rejection reason or filter name on an entry allocates once).
///
/// Counting rules:
/// - `received(topic:)` raises the topic's and the totals' `received` and `in_flight`.
/// - `finished(topic:decision:)` counts the outcome and side counters for the topic and
///   totals and lowers their `in_flight`. Routes get `received` and the outcome together
///   at finish, because the route is only known once the decision is made: the per-route
///   invariant holds with `in_flight` 0. `unrouted` has no route and counts in topics and
///   totals only.
/// - The first `maxTopics` distinct topics are tracked by name; later ones count under
///   `"(other)"` (a topic literally named `(other)` shares that entry).
final class Stats: Sendable {
    /// Name of the topic entry that collects topics beyond `maxTopics`.
    static let otherTopic = "(other)"
    /// Name under which a suppression with no `decidedBy` is counted in `filters`.
    static let unnamedFilter = "(extension)"

    /// The bridge version reported in snapshots.
    package let version: String
    /// Process start, UNIX seconds.
    package let startedAt: Double
    private let clock: @Sendable () -> Double
    private let state: Mutex<State>
    private let connected = Atomic<Bool>(false)
    /// Outside the lock: most messages a partitioned replica sees are skipped.
    private let skipped = Atomic<Int>(0)

    private struct State: ~Copyable {
        var topics: CounterTable<Counters>
        var lastSeen: [Double]
        let otherSlot: Int
        var routes = CounterTable<Counters>(capacity: .max)
        var filters = CounterTable<Int>(capacity: .max)
        var totals = Counters()
        var extensionDuration = Histogram.extensionDuration()
        var latency = Histogram.latency()

        init(maxTopics: Int) {
            topics = CounterTable(capacity: max(0, maxTopics))
            otherSlot = topics.insertReserved(Stats.otherTopic, Counters())
            topics.alias(Stats.otherTopic, to: otherSlot)
            lastSeen = [0]
        }

        /// The last route and filter counted, with their slots: consecutive messages mostly
        /// share them, and comparing a name is cheaper than hashing it.
        var lastRoute: (name: String, slot: Int)?
        var lastFilter: (name: String, slot: Int)?

        /// The slot for route `name` (routes are not capped).
        mutating func routeSlot(_ name: String) -> Int? {
            if let last = lastRoute, last.name == name { return last.slot }
            guard let r = routes.slot(for: name, make: { Counters() }) else { return nil }
            lastRoute = (name, r)
            return r
        }

        /// The slot for filter `name` (filters are not capped).
        mutating func filterSlot(_ name: String) -> Int? {
            if let last = lastFilter, last.name == name { return last.slot }
            guard let f = filters.slot(for: name, make: { 0 }) else { return nil }
            lastFilter = (name, f)
            return f
        }

        /// The slot for `topic`, adding it while there is room, else the "(other)" slot.
        mutating func topicSlot(_ topic: String) -> Int {
            if let i = topics.slot(for: topic, make: { Counters() }) {
                if i == lastSeen.count { lastSeen.append(0) }
                return i
            }
            return otherSlot
        }
    }

    /// Counters for a bridge tracking at most `maxTopics` topics by name.
    convenience init(maxTopics: Int, version: String, startedAt: Double) {
        self.init(maxTopics: maxTopics, version: version, startedAt: startedAt,
                  clock: { Date().timeIntervalSince1970 })
    }

    /// As above, with the clock used for `last_seen` (UNIX seconds).
    init(maxTopics: Int, version: String, startedAt: Double, clock: @escaping @Sendable () -> Double) {
        self.version = version
        self.startedAt = startedAt
        self.clock = clock
        self.state = Mutex(State(maxTopics: maxTopics))
    }

    /// A message arrived on `topic`: `received` and `in_flight` go up.
    package func received(topic: String) {
        received(topic: topic, at: clock())
    }

    /// As `received(topic:)`, seen at `now` (UNIX seconds) instead of a clock read; returns
    /// the topic's slot for `finished(topicSlot:decision:)`.
    @discardableResult
    func received(topic: String, at now: Double) -> Int {
        state.withLock { s in
            let i = s.topicSlot(topic)
            s.topics.entries[i].received += 1
            s.topics.entries[i].inFlight += 1
            s.lastSeen[i] = now
            s.totals.received += 1
            s.totals.inFlight += 1
            return i
        }
    }

    /// The message from `topic` reached `decision`: its outcome and side counters are
    /// counted for the topic, its route and the totals; `in_flight` goes down. Call once
    /// per earlier `received(topic:)`.
    func finished(topic: String, decision: Decision) {
        state.withLock { s in
            Self.count(decision, topicSlot: s.topics.slot(of: topic) ?? s.otherSlot, in: &s)
        }
    }

    /// As `finished(topic:decision:)`, for the slot `received(topic:at:)` returned (topics
    /// keep their slot for the life of the counters).
    func finished(topicSlot: Int, decision: Decision) {
        state.withLock { s in Self.count(decision, topicSlot: topicSlot, in: &s) }
    }

    /// A decision of a route that handed the message on (`continue: true`): counted for the
    /// route (and its filters), not for the topic or the totals, where the message's one
    /// outcome is the last route's.
    func routeDecided(_ decision: Decision) {
        state.withLock { s in Self.countRoute(decision, in: &s) }
    }

    private static func count(_ decision: Decision, topicSlot i: Int, in s: inout State) {
        s.topics.entries[i].count(decision, finishing: true)
        s.totals.count(decision, finishing: true)
        countRoute(decision, in: &s)
    }

    private static func countRoute(_ decision: Decision, in s: inout State) {
        if decision.outcome != .unrouted, let route = decision.route, let r = s.routeSlot(route) {
            s.routes.entries[r].received += 1
            s.routes.entries[r].count(decision, finishing: false)
        }
        if decision.outcome == .suppressed, let f = s.filterSlot(decision.decidedBy ?? Stats.unnamedFilter) {
            s.filters.entries[f] += 1
        }
        if let seconds = decision.stageSeconds { s.extensionDuration.observe(seconds) }
    }

    /// A message on `topic` carried the bridge's own hop property and was dropped.
    ///
    /// It is counted as `loop_dropped` (topic and totals) but not as `received`: it never
    /// entered the pipeline, so it has no outcome, and the invariant is unaffected.
    func loopDropped(topic: String) {
        let now = clock()
        state.withLock { s in
            let i = s.topicSlot(topic)
            s.topics.entries[i].loopDropped += 1
            s.lastSeen[i] = now
            s.totals.loopDropped += 1
        }
    }

    /// A message on a topic another partition handles was dropped (`partition:`).
    ///
    /// Counted in the totals only (`partition_skipped`): not as `received`, so the
    /// invariant is unaffected, and not per topic, so the topics of the other partitions
    /// never fill this replica's `max_topics`.
    func partitionSkipped() {
        skipped.add(1, ordering: .relaxed)
    }

    /// Records the time from a message's arrival to the display publish's PUBACK.
    func endToEndLatency(seconds: Double) {
        state.withLock { $0.latency.observe(seconds) }
    }

    /// Whether the broker connection is up.
    func setConnected(_ connected: Bool) { self.connected.store(connected, ordering: .relaxed) }

    /// A consistent copy of every counter, taken at `now` (UNIX seconds).
    ///
    /// The copy is made in one critical section; the snapshot is assembled after it.
    /// `latency_ms` covers every latency recorded since start.
    package func snapshot(now: Double) -> StatsSnapshot {
        let copy = state.withLock { s in
            let topics = s.topics.copied()
            return (topics: topics.names, topicCounters: topics.entries,
                    lastSeen: s.lastSeen.withUnsafeBufferPointer { Array($0) },
                    routes: s.routes.copied(), filters: s.filters.copied(), totals: s.totals,
                    extensionDuration: s.extensionDuration.detached(), latency: s.latency.detached())
        }
        var topics: [String: TopicStats] = [:]
        for (i, name) in copy.topics.enumerated() {
            let counters = copy.topicCounters[i]
            if name == Stats.otherTopic && counters.isZero { continue }
            topics[name] = TopicStats(counters: counters, lastSeen: copy.lastSeen[i] > 0 ? copy.lastSeen[i] : nil)
        }
        var totals = copy.totals
        totals.partitionSkipped = skipped.load(ordering: .relaxed)
        return StatsSnapshot(
            version: version, startedAt: startedAt, uptime: max(0, now - startedAt),
            connected: connected.load(ordering: .relaxed), totals: totals, topics: topics,
            routes: Dictionary(uniqueKeysWithValues: zip(copy.routes.names, copy.routes.entries)),
            filters: Dictionary(uniqueKeysWithValues: zip(copy.filters.names, copy.filters.entries)),
            latency: copy.latency, extensionDuration: copy.extensionDuration)
    }
}
