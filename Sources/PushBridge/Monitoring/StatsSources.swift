import Foundation

/// What a stats snapshot is built from: the counters of `Stats` and the typed counts the
/// other layers keep themselves (filter memory, conditions, delivery, outputs). The bridge
/// hands them over once, at construction; monitoring assembles every snapshot.
struct StatsSources: Sendable {
    let stats: Stats
    /// The filter memory (it outlives pipelines, so reloads keep it).
    let filterMemory: FilterMemory
    let conditions: ConditionEngine
    let delivery: DeliveryCounters
    /// The connections whose refused publishes count as `publish_refused`.
    let connections: [MQTTClient]
    let outputs: OutputSet?
    /// The attachment service in use, if any (made with the first config that has attachments).
    var attachments: @Sendable () -> AttachmentService? = { nil }
    /// The digest routes' windows (they outlive pipelines).
    var digests: DigestBook? = nil
    /// The people, when `people:` is configured.
    var people: PeopleDesk? = nil
    /// The shared state backend's health, with `state.redis`.
    var state: StateHealth? = nil

    /// The counters now (`now` in UNIX seconds), with the other layers' counts.
    func snapshot(now: Double = Date().timeIntervalSince1970) -> StatsSnapshot {
        var s = stats.snapshot(now: now)
        s.filterEvictions = filterMemory.evictions.filter { $0.value > 0 }
        s.conditions = conditions.counts
        s.acknowledgements = conditions.acknowledgementCounts
        s.delivery = delivery.counts(publishRefused: connections.reduce(0) { $0 + $1.refusedPublishCount })
        s.outputs = outputs?.snapshots() ?? []
        s.attachments = attachments()?.counts
        s.digests = digests?.counts ?? [:]
        s.people = people.map(PeopleCounts.init)
        s.state = state.map(StateCounts.init)
        return s
    }
}
