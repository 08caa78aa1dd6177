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
    static func retainedConfigs(broker: MQTTClientOptions, filter: String, logger: BridgeLogger) -> Set<String>? {
        final class Seen: Sendable {
            let topics = Mutex<Set<String>>([])
            /// Signalled at every accepted CONNACK (semaphores: from libmosquitto's callbacks).
            let connected = DispatchSemaphore(value: 0)
            /// Signalled at every message.
            let arrived = DispatchSemaphore(value: 0)
        }
        let seen = Seen()
        var options = broker
        options.will = nil
        options.subscriptions = [MQTTSubscription(filter: filter, qos: 0)]
        options.clientID = broker.clientID + "-ha-sweep"
        options.cleanStart = true
        options.sessionExpiry = .zero
        let handlers = MQTTClientHandlers(
            onMessage: { message in
                if message.retain, !message.payload.isEmpty { seen.topics.withLock { _ = $0.insert(message.topic) } }
                seen.arrived.signal()
            },
            onConnection: { if case .connected = $0 { seen.connected.signal() } })
        guard let client = try? MQTTClient(options: options, log: { level, text in
            if level >= .warning { logger.debug("Home Assistant sweep: \(text)") }
        }) else { return nil }
        client.start(handlers: handlers)
        defer { client.stop(flushTimeout: .zero) }
        let end = ContinuousClock.now + budget
        // Connected, then the SUBACK (the retained store follows it); a connection lost in
        // between is waited for again.
        repeat {
            guard seen.connected.wait(timeout: .now() + (end - .now).dispatchInterval) == .success else { return nil }
        } while !client.waitUntilSubscribed(timeout: end - .now)
        // Every message restarts the quiet period.
        while ContinuousClock.now < end, seen.arrived.wait(timeout: .now() + min(quiet, end - .now).dispatchInterval) == .success {}
        return seen.topics.withLock { $0 }
    }
}
