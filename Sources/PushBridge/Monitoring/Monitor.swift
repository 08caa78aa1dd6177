import Synchronization

/// Monitoring's side of `BridgeEvents`: the counters (`Stats`) and the decision feed
/// (dashboard readers, `monitoring.trace_topic`) are fed only through it.
final class Monitor: BridgeEvents {
    let stats: Stats
    let feed: DecisionFeed
    /// The connection the trace topic is published on (the intake connection), given once
    /// the connections exist and before they start.
    private let traceClient = Mutex<MQTTClient?>(nil)

    init(stats: Stats, feed: DecisionFeed) {
        self.stats = stats
        self.feed = feed
    }

    /// Publishes `trace_topic` records through `client` from now on.
    func trace(through client: MQTTClient) {
        traceClient.withLock { $0 = client }
    }

    func received(topic: String, at time: Double) -> Int {
        stats.received(topic: topic, at: time)
    }

    func finished(slot: Int, topic: String, id: String, decision: Decision) {
        stats.finished(topicSlot: slot, decision: decision)
        guard feed.isWatched else { return }
        feed.offer(topic: topic, id: id, decision: decision, client: traceClient.withLock { $0 })
    }

    func routeDecided(topic: String, id: String, decision: Decision) {
        stats.routeDecided(decision)
        guard feed.isWatched else { return }
        feed.offer(topic: topic, id: id, decision: decision, client: traceClient.withLock { $0 })
    }

    func conditionDecided(topic: String, id: String, decision: Decision) {
        guard feed.isWatched else { return }
        feed.offer(topic: topic, id: id, decision: decision, client: traceClient.withLock { $0 })
    }

    func delivered(after seconds: Double) {
        stats.endToEndLatency(seconds: seconds)
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
