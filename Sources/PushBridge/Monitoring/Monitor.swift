import Synchronization

/// Monitoring's side of `BridgeEvents`: the counters (`Stats`) and the decision feed
/// (dashboard readers, `monitoring.trace_topic`) are fed only through it.
final class Monitor: BridgeEvents {
    let stats: Stats
    let feed: DecisionFeed
    /// The connection `trace_topic` records are published on (the intake connection).
    private let traceClient: MQTTClient

    init(stats: Stats, feed: DecisionFeed, traceClient: MQTTClient) {
        self.stats = stats
        self.feed = feed
        self.traceClient = traceClient
    }

    func received(topic: String, at time: Double) -> Int {
        stats.received(topic: topic, at: time)
    }

    func finished(slot: Int, topic: String, id: String, decision: Decision) {
        stats.finished(topicSlot: slot, decision: decision)
        feed.offer(topic: topic, id: id, decision: decision, client: traceClient)
    }

    func routeDecided(topic: String, id: String, decision: Decision) {
        stats.routeDecided(decision)
        feed.offer(topic: topic, id: id, decision: decision, client: traceClient)
    }

    func conditionDecided(topic: String, id: String, decision: Decision) {
        feed.offer(topic: topic, id: id, decision: decision, client: traceClient)
    }

    func skipped(_ reason: SkipReason, topic: String) {
        switch reason {
        case .loop: stats.loopDropped(topic: topic)
        case .partition: stats.partitionSkipped()
        }
    }

    func connection(up: Bool) {
        stats.setConnected(up)
    }
}
