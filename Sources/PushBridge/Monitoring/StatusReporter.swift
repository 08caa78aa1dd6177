import Foundation
import Synchronization

/// The bridge's reports about itself on the broker (SPEC section 7): `online`/`offline` on
/// the status topic and the retained stats snapshot every `monitoring.interval`.
final class StatusReporter: Sendable {
    private let monitoring: MonitoringConfig
    private let properties: [(name: String, value: String)]
    private let snapshot: @Sendable () -> StatsSnapshot
    private let timer = Mutex<PeriodicTimer?>(nil)

    /// A dispatch timer source (thread-safe: its methods may be called from any thread).
    private final class PeriodicTimer: @unchecked Sendable {
        let source = DispatchSource.makeTimerSource(queue: .global())
    }

    /// `properties` go on the stats publish (the hop property on MQTT 5); `snapshot` makes
    /// the counters to publish.
    init(monitoring: MonitoringConfig, properties: [(name: String, value: String)],
         snapshot: @escaping @Sendable () -> StatsSnapshot) {
        self.monitoring = monitoring
        self.properties = properties
        self.snapshot = snapshot
    }

    /// The will the intake connection leaves: `offline`, retained, on the status topic.
    var will: MQTTWill? {
        monitoring.statusTopic.map { MQTTWill(topic: $0, payload: Array("offline".utf8), qos: 1, retain: true) }
    }

    /// Publishes the retained stats snapshot through `client`.
    func publishStats(through client: MQTTClient) {
        guard let topic = monitoring.statsTopic else { return }
        _ = try? client.publish(topic: topic, payload: snapshot().json(), qos: 1, retain: true, userProperties: properties)
    }

    /// Publishes `online` or `offline` (retained) on the status topic through `client`.
    func publishStatus(online: Bool, through client: MQTTClient) {
        guard let topic = monitoring.statusTopic else { return }
        _ = try? client.publish(topic: topic, payload: Array((online ? "online" : "offline").utf8), qos: 1,
                                retain: true, userProperties: [])
    }

    /// Publishes the stats through `client` every `monitoring.interval` until `stop()`.
    func start(through client: MQTTClient) {
        guard monitoring.statsTopic != nil else { return }
        let timer = PeriodicTimer(), source = timer.source
        let interval = DispatchTimeInterval.nanoseconds(Int(min(monitoring.interval.seconds, 86_400) * 1e9))
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { [weak self] in self?.publishStats(through: client) }
        self.timer.withLock { $0 = timer }
        source.resume()
    }

    /// Stops the periodic stats.
    func stop() {
        timer.withLock { t in
            t?.source.cancel()
            t = nil
        }
    }
}
