import Foundation
import Synchronization

/// The bridge's reports about itself on the broker: `online`/`offline` on
/// the status topic and the retained stats snapshot every `monitoring.interval`.
final class StatusReporter: Sendable {
    private let monitoring: MonitoringConfig
    private let properties: [(name: String, value: String)]
    /// The stats interval.
    private let timer = DueTimer()

    /// `properties` go on the stats publish (the hop property on MQTT 5).
    init(monitoring: MonitoringConfig, properties: [(name: String, value: String)]) {
        self.monitoring = monitoring
        self.properties = properties
    }

    /// The will the intake connection leaves: `offline`, retained, on the status topic.
    var will: MQTTWill? {
        monitoring.statusTopic.map { MQTTWill(topic: $0, payload: Array("offline".utf8), qos: 1, retain: true) }
    }

    /// Publishes `snapshot` as the retained stats through `client`.
    func publishStats(_ snapshot: @autoclosure () -> StatsSnapshot, through client: MQTTClient) {
        guard let topic = monitoring.statsTopic else { return }
        _ = try? client.publish(topic: topic, payload: snapshot().json(), qos: 1, retain: true, userProperties: properties)
    }

    /// Publishes `online` or `offline` (retained) on the status topic through `client`.
    func publishStatus(online: Bool, through client: MQTTClient) {
        guard let topic = monitoring.statusTopic else { return }
        _ = try? client.publish(topic: topic, payload: Array((online ? "online" : "offline").utf8), qos: 1,
                                retain: true, userProperties: [])
    }

    /// Publishes what `snapshot` makes through `client` every `monitoring.interval` until
    /// `stop()` (a `nil` snapshot is skipped).
    func start(through client: MQTTClient, snapshot: @escaping @Sendable () -> StatsSnapshot?) {
        guard monitoring.statsTopic != nil else { return }
        timer.start { [weak self] in
            if let self, let s = snapshot() { publishStats(s, through: client) }
        }
        timer.arm(every: monitoring.interval)
    }

    /// Stops the periodic stats.
    func stop() {
        timer.cancel()
    }
}
