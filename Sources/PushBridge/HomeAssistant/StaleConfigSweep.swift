import Foundation
import Synchronization

/// Finds the discovery configs the broker still holds for this bridge's node that the
/// current configuration no longer announces: the entities of routes removed while the
/// bridge was stopped (a reload removes its own at once).
///
/// A short-lived connection of its own (`<client_id>-ha-sweep`, clean, no session) subscribes
/// to `<prefix>/+/<node>/+/config`: a new subscription always gets the retained store
/// (the bridge's intake connection, with its persistent session and Retain Handling 1, would
/// not). It reads what arrives until the store has been quiet for a moment, then leaves.
enum StaleConfigSweep {
    /// How long the broker may stay silent after the SUBACK before the store is taken as read.
    static let quiet: Duration = .milliseconds(500)
    /// The most the sweep waits in all.
    static let budget: Duration = .seconds(15)

    /// The filter covering every discovery config of `nodeID`.
    static func filter(prefix: String, nodeID: String) -> String { "\(prefix)/+/\(nodeID)/+/config" }

    /// The retained, non-empty config topics under `filter` (nil when the broker could not
    /// be read within the budget). Blocks: call it off the cooperative pool.
    static func retainedConfigs(broker: BrokerConfig, filter: String, logger: Logger) -> Set<String>? {
        final class Seen: Sendable {
            let topics = Mutex<Set<String>>([])
            let lastArrival = Mutex<ContinuousClock.Instant>(.now)
        }
        let seen = Seen()
        var options = MQTTClientOptions(config: broker, will: nil,
                                        subscriptions: [MQTTSubscription(filter: filter, qos: 0)])
        options.clientID = broker.clientID + "-ha-sweep"
        options.cleanStart = true
        options.sessionExpiry = .zero
        let handlers = MQTTClientHandlers(
            onMessage: { message in
                seen.lastArrival.withLock { $0 = .now }
                if message.retain, !message.payload.isEmpty { seen.topics.withLock { _ = $0.insert(message.topic) } }
            },
            log: { level, text in if level >= .warning { logger.debug("Home Assistant sweep: \(text)") } })
        guard let client = try? MQTTClient(options: options, handlers: handlers) else { return nil }
        client.start()
        defer { client.stop(flushTimeout: .zero) }
        let deadline = ContinuousClock.now + budget
        while !client.isSubscribed {
            guard ContinuousClock.now < deadline else { return nil }
            usleep(10_000)
        }
        seen.lastArrival.withLock { $0 = .now }
        while ContinuousClock.now < deadline {
            if ContinuousClock.now - seen.lastArrival.withLock({ $0 }) >= quiet { break }
            usleep(20_000)
        }
        return seen.topics.withLock { $0 }
    }
}
